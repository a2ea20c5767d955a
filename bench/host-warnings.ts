import type { HostLogger } from "../dev/host-logger";

/**
 * The in-process host's warnings and errors during a benchmark (a delivery retried, a poll that
 * failed): counted and the first few kept, so a figure that a fault bent is printed with the fault.
 * Everything else the host logs is dropped (log lines would skew timings).
 */
export class HostWarnings {
  private count = 0;
  private readonly first: string[] = [];

  readonly logger: HostLogger = (level, functionName, message) => {
    if (level !== "warning" && level !== "error" && level !== "critical") return;
    this.count++;
    if (this.first.length < 3) this.first.push(`${level} ${functionName}: ${message.slice(0, 300)}`);
  };

  /** Lines saying what was logged since the last call (none when nothing was), then forgets it. */
  drain(part: string): string[] {
    if (this.count === 0) return [];
    const lines = [
      `  ${part}: the host logged ${this.count} warning(s) or error(s), the first:`,
      ...this.first.map((line) => `    ${line}`),
    ];
    this.count = 0;
    this.first.length = 0;
    return lines;
  }
}
