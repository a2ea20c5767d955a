import { redactSecrets } from "../common/redact";

/** Where delivery reports what became of events: the invocation's context (InvocationContext fits). */
export interface DeliveryLogger {
  log(line: string): void;
  warn(line: string): void;
  error(line: string): void;
  /** Lines worth having only while looking into something (events no route let through). */
  debug?(line: string): void;
}

export const silentLogger: DeliveryLogger = { log: () => {}, warn: () => {}, error: () => {} };

type FieldValue = string | number | undefined;

/**
 * `what: key="value" key=3 …`. Every string is written as a JSON string, so an event id or an
 * error message can neither break the line nor forge a field; undefined fields are left out. The
 * whole line also goes through the secret masking, as a second line of defence: nothing logged
 * here should hold a key or a SAS signature in the first place.
 */
export function logLine(what: string, fields: Record<string, FieldValue>): string {
  const parts = Object.entries(fields)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([key, value]) => `${key}=${typeof value === "number" ? value : JSON.stringify(value)}`);
  return redactSecrets([what, ...parts].join(" "));
}
