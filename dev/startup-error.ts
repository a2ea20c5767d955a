import { ConfigError } from "../src/config";

/** A start-up problem the user can fix from its message alone (a busy port, a bad setting). */
export class StartupError extends Error {
  override readonly name: string = "StartupError";
}

/** The message alone for problems the user can fix; the stack for anything else (a bug). */
export function describeFailure(error: unknown): string {
  if (error instanceof StartupError || error instanceof ConfigError) return error.message;
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
