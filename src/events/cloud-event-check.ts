import { type CloudEvent, cloudEventSchema } from "./cloud-event";

/**
 * A quick yes to "would cloudEventSchema accept this?" for the common event, without zod's copy
 * of it: ingest checks every event of a request with it, and delivery every event of a queue
 * message (several hundred at a time), where the schema's parse made a new object of each event
 * only to be thrown away. It answers true only where the schema accepts the value; anything it is
 * not sure of (not a plain object, an own `__proto__` key, a field of the wrong kind) is false,
 * and the caller asks the schema itself, for the verdict and for its issues. So the verdicts are
 * the schema's (a property test holds the two side by side on hostile values).
 */

const REQUIRED_STRINGS = ["id", "source", "type"] as const;
const OPTIONAL_STRINGS = ["datacontenttype", "dataschema", "subject"] as const;

type Shape = typeof cloudEventSchema.shape;

/** A field whose format zod checks (a date-time, base64), asked of the schema's own field; the last yes remembered. */
function formatCheck(field: Shape["time"] | Shape["data_base64"]): (value: string) => boolean {
  let lastAccepted: string | undefined;
  return (value) => {
    if (value === lastAccepted) return true;
    const ok = field.safeParse(value).success;
    if (ok) lastAccepted = value;
    return ok;
  };
}

const timeAccepted = formatCheck(cloudEventSchema.shape.time);
const base64Accepted = formatCheck(cloudEventSchema.shape.data_base64);

function isNonEmptyString(value: unknown): boolean {
  return typeof value === "string" && value.length > 0;
}

/** An object made by JSON.parse or a literal: what the quick check answers for; anything else goes to zod. */
export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  return Object.getPrototypeOf(value) === Object.prototype && !Object.hasOwn(value, "__proto__");
}

/** True only when cloudEventSchema accepts the value (false: ask the schema). */
export function isCloudEventQuick(value: unknown): value is CloudEvent {
  if (!isPlainRecord(value)) return false;
  for (const key of REQUIRED_STRINGS) if (!isNonEmptyString(value[key])) return false;
  if (value.specversion !== "1.0") return false;
  for (const key of OPTIONAL_STRINGS) {
    if (value[key] !== undefined && !isNonEmptyString(value[key])) return false;
  }
  const { time, data_base64: dataBase64 } = value;
  if (time !== undefined && !(typeof time === "string" && timeAccepted(time))) return false;
  if (dataBase64 !== undefined && !(typeof dataBase64 === "string" && base64Accepted(dataBase64))) {
    return false;
  }
  return true;
}
