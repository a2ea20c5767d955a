import { ConfigError } from "../src/config";
import { PortInUseError } from "./ports";

/**
 * A start-up problem the user can fix from its message alone (a busy port, a bad setting), so the
 * launcher prints just the message, without a stack trace.
 */
export class StartupError extends Error {
  override readonly name = "StartupError";
}

/** The message alone for problems the user can fix; the stack for anything else (a bug). */
export function describeFailure(error: unknown): string {
  if (error instanceof StartupError || error instanceof PortInUseError || error instanceof ConfigError) {
    return error.message;
  }
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
