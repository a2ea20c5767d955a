import type { LogLevel } from "@azure/functions";

export type HostLogger = (level: LogLevel, functionName: string, message: string) => void;

let stampedAt = Number.NaN;
let stamp = "";

/** The time as ISO 8601 text, made once a millisecond: the host logs several lines in one. */
function timestamp(): string {
  const now = Date.now();
  if (now !== stampedAt) {
    stampedAt = now;
    stamp = new Date(now).toISOString();
  }
  return stamp;
}

/** One log line as the local host prints it. */
export function formatLogLine(level: LogLevel, functionName: string, message: string): string {
  return `[${timestamp()}] ${level.padEnd(11)} ${functionName}: ${message}`;
}

export const consoleLogger: HostLogger = (level, functionName, message) => {
  const line = formatLogLine(level, functionName, message);
  if (level === "error" || level === "critical") console.error(line);
  else console.log(line);
};
