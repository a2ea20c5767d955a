import { redactSecrets } from "./redact";

const MAX_LENGTH = 500;

/**
 * A one-line account of an error that is safe to store and log: name, code and message, with
 * anything shaped like a secret masked and control characters removed.
 */
export function describeError(error: unknown): string {
  const text =
    error instanceof Error
      ? [error.name, (error as { code?: unknown }).code, issuesOf(error) ?? error.message, causesOf(error)]
          // SDK errors often carry their meaning in a code (Cosmos: the HTTP status) and no message.
          .filter((part) => part !== undefined && part !== "")
          .join(": ")
      : String(error);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
  const oneLine = redactSecrets(text).replace(/[\u0000-\u001f\u007f]+/g, " ");
  return oneLine.length > MAX_LENGTH ? `${oneLine.slice(0, MAX_LENGTH)}…` : oneLine;
}

/**
 * What an AggregateError (the Service Bus client's, once its retries are spent) wraps, each
 * described once: its own name says nothing of why.
 */
function causesOf(error: Error): string | undefined {
  const wrapped = (error as { errors?: unknown }).errors;
  if (!Array.isArray(wrapped) || wrapped.length === 0) return undefined;
  const distinct = [...new Set(wrapped.map((each) => describeError(each)))];
  return `${wrapped.length} attempt(s): ${distinct.join(" | ")}`;
}

/**
 * A zod error's issues, one `path: rule` each (`events.0.specversion: must be "1.0"`), rather than
 * its message, which is the issues as indented JSON.
 */
function issuesOf(error: Error): string | undefined {
  const issues = (error as { issues?: unknown }).issues;
  if (error.name !== "ZodError" || !Array.isArray(issues)) return undefined;
  return issues
    .slice(0, 5)
    .map((issue: { path?: unknown[]; message?: unknown }) => {
      const path = Array.isArray(issue.path) ? issue.path.map(String).join(".") : "";
      return `${path || "(the value)"}: ${String(issue.message)}`;
    })
    .concat(issues.length > 5 ? [`and ${issues.length - 5} more`] : [])
    .join("; ");
}
