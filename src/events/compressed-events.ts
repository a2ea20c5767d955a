import { gunzipSync, gzipSync } from "node:zlib";
import type { CloudEvent } from "./cloud-event";
import { eventJson } from "./queue-message";

/**
 * The compressed form of a twin-events queue message: instead of `events`, `eventsGzip` holds the
 * same JSON array gzipped and base64-encoded (inside the message's own base64). JSON events are
 * repetitive, so one 64 KiB message then carries several times as many of them: fewer storage
 * transactions and trigger invocations, and bigger Service Bus batches. An addition to the format:
 * messages with `events` are read as before, and producers may write either.
 */
export const COMPRESSED_EVENTS_FIELD = "eventsGzip";

/**
 * The most JSON one `eventsGzip` may expand to. A bound on what a message can make the trigger
 * allocate (a small gzip can expand enormously); ingest packs at most COMPRESS_GROUP_BYTES.
 */
export const MAX_EXPANDED_EVENTS_BYTES = 1024 * 1024;

/** Events' JSON packed into one compressed message at most (then halved until the message fits). */
export const COMPRESS_GROUP_BYTES = 256 * 1024;

/** Below this much JSON, events go out plain: compressing would save a storage write at most. */
export const COMPRESS_FROM_BYTES = 16 * 1024;

/**
 * gzip of the events' JSON array (each event's text made once, queue-message.ts), as base64. On
 * this thread: a message's worth takes well under a millisecond, less than a hop to libuv's pool
 * and back would cost.
 */
export async function gzipEvents(events: readonly CloudEvent[]): Promise<string> {
  // Level 1: on JSON events nearly the ratio of the default level, at a fraction of its CPU.
  const zipped = gzipSync(`[${events.map(eventJson).join(",")}]`, { level: 1 });
  return zipped.toString("base64");
}

export type ExpandedMessage = { ok: true; message: unknown } | { ok: false; detail: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A queue message as delivery validates it: one with `eventsGzip` gets its `events` back (the
 * schema then checks them as any others); any other message is returned as it is. What cannot be
 * expanded (both fields, not base64 gzip, over MAX_EXPANDED_EVENTS_BYTES, not JSON) is an invalid
 * message, with the reason.
 */
export async function expandCompressedEvents(message: unknown): Promise<ExpandedMessage> {
  if (!isRecord(message) || !(COMPRESSED_EVENTS_FIELD in message)) return { ok: true, message };
  const { [COMPRESSED_EVENTS_FIELD]: zipped, ...rest } = message;
  if ("events" in message) {
    return { ok: false, detail: `a message has events or ${COMPRESSED_EVENTS_FIELD}, not both` };
  }
  if (typeof zipped !== "string") {
    return { ok: false, detail: `${COMPRESSED_EVENTS_FIELD} must be a string (base64 of gzip)` };
  }
  let text: string;
  try {
    const expanded = gunzipSync(Buffer.from(zipped, "base64"), {
      maxOutputLength: MAX_EXPANDED_EVENTS_BYTES,
    });
    text = expanded.toString("utf8");
  } catch (error) {
    const tooLarge = (error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE";
    return {
      ok: false,
      detail: tooLarge
        ? `${COMPRESSED_EVENTS_FIELD} expands to more than ${MAX_EXPANDED_EVENTS_BYTES} bytes`
        : `${COMPRESSED_EVENTS_FIELD} is not base64 of gzip`,
    };
  }
  try {
    return { ok: true, message: { ...rest, events: JSON.parse(text) } };
  } catch {
    return { ok: false, detail: `${COMPRESSED_EVENTS_FIELD} does not expand to JSON` };
  }
}
