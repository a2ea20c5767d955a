import type { LogLevel } from "@azure/functions";

export type HostLogger = (level: LogLevel, functionName: string, message: string) => void;

/** One log line as the local host prints it. */
export function formatLogLine(level: LogLevel, functionName: string, message: string): string {
  return `[${new Date().toISOString()}] ${level.padEnd(11)} ${functionName}: ${message}`;
}

export const consoleLogger: HostLogger = (level, functionName, message) => {
  const line = formatLogLine(level, functionName, message);
  if (level === "error" || level === "critical") console.error(line);
  else console.log(line);
};
