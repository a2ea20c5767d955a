import { formatLogLine, type HostLogger } from "./host-logger";

/**
 * The host process's log (dev/local-host-main.ts): consoleLogger's lines, but those for stdout
 * written once per turn of the event loop rather than one write a line. The host logs a line for
 * every request, and one write each is a system call per request, where the Functions host sends
 * its logs on in batches. Errors go to stderr at once, after what was waiting, so lines keep
 * their order; what is waiting is written before the process exits.
 */
export function batchedConsoleLogger(): HostLogger {
  let waiting: string[] = [];
  const flush = () => {
    if (waiting.length === 0) return;
    const text = waiting.join("\n");
    waiting = [];
    // What console.log writes for one string, without its formatting pass.
    process.stdout.write(`${text}\n`);
  };
  process.on("exit", flush);
  return (level, functionName, message) => {
    const line = formatLogLine(level, functionName, message);
    if (level === "error" || level === "critical") {
      flush();
      console.error(line);
      return;
    }
    if (waiting.length === 0) setImmediate(flush);
    waiting.push(line);
  };
}
