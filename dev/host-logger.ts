import type { LogLevel } from "@azure/functions";

export type HostLogger = (level: LogLevel, functionName: string, message: string) => void;

export const consoleLogger: HostLogger = (level, functionName, message) => {
  const line = `[${new Date().toISOString()}] ${level.padEnd(11)} ${functionName}: ${message}`;
  if (level === "error" || level === "critical") console.error(line);
  else console.log(line);
};
