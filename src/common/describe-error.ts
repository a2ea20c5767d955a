import { redactSecrets } from "./redact";

const MAX_LENGTH = 500;

/**
 * A one-line account of an error that is safe to store and log: name, code and message, with
 * anything shaped like a secret masked and control characters removed.
 */
export function describeError(error: unknown): string {
  const text =
    error instanceof Error
      ? [error.name, (error as { code?: unknown }).code, error.message]
          // SDK errors often carry their meaning in a code (Cosmos: the HTTP status) and no message.
          .filter((part) => part !== undefined && part !== "")
          .join(": ")
      : String(error);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
  const oneLine = redactSecrets(text).replace(/[\u0000-\u001f\u007f]+/g, " ");
  return oneLine.length > MAX_LENGTH ? `${oneLine.slice(0, MAX_LENGTH)}…` : oneLine;
}
