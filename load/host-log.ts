import type { LogLevel } from "@azure/functions";
import type { HostLogger } from "../dev/host-logger";
import { type DeliveryCounters, emptyCounters } from "../src/delivery/delivery-counters";

/** Kept for the summary: the first few warnings and errors the host logged. */
const KEPT_LINES = 5;

/**
 * What the host logged during the run, without printing it (a line per invocation would bury the
 * progress lines): counts by level, the first warnings and errors, and the sum of the delivery
 * counters each queue invocation logs (`twin events: delivered=… retried=…`).
 */
export class HostLog {
  readonly levels = new Map<LogLevel, number>();
  readonly problems: string[] = [];
  readonly delivery: DeliveryCounters = emptyCounters();

  readonly logger: HostLogger = (level, functionName, message) => {
    this.levels.set(level, (this.levels.get(level) ?? 0) + 1);
    if (
      (level === "warning" || level === "error" || level === "critical") &&
      this.problems.length < KEPT_LINES
    ) {
      this.problems.push(`${level} ${functionName}: ${message.slice(0, 300)}`);
    }
    const counters = /^twin events: (.*)$/.exec(message)?.[1];
    if (counters === undefined) return;
    for (const pair of counters.split(" ")) {
      const [name, value] = pair.split("=");
      if (name !== undefined && name in this.delivery) {
        this.delivery[name as keyof DeliveryCounters] += Number(value);
      }
    }
  };

  count(...levels: LogLevel[]): number {
    return levels.reduce((sum, level) => sum + (this.levels.get(level) ?? 0), 0);
  }
}
