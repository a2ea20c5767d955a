import { gunzipSync } from "node:zlib";

/**
 * A message of the poison queue `<queue>-poison` as `twin poison` reads it (docs/api.md, "The
 * poison queue"): the service's own records, base64 JSON with a `reason`, or messages the
 * Functions host moved there unchanged after maxDequeueCount failed runs (no `reason`). What can
 * go back on the main queue: a record's `{twinsInstanceId, events | eventsGzip}` (an InvalidMessage
 * record's `message`, when that is one), base64 JSON as the service writes its queue messages;
 * a moved message, as it is. A record of an event it could not hold (`eventLeftOut`), or of a
 * message it did not keep, holds nothing to requeue.
 */

/** What `twin poison peek` shows of a record. */
export interface PoisonSummary {
  /** The record's reason, or "host gave up" for a message the host moved. */
  reason: string;
  twinsInstanceId: string | undefined;
  endpointName: string | undefined;
  /** How many events it holds (undefined when they cannot be counted). */
  events: number | undefined;
  compressed: boolean;
  detail: string | undefined;
  lastError: string | undefined;
  poisonedAt: string | undefined;
}

export interface PoisonReading {
  summary: PoisonSummary;
  /** The text to put back on the main queue; undefined when there is nothing to requeue. */
  requeueText: string | undefined;
  /** Why it cannot be requeued, when it cannot. */
  whyNot: string | undefined;
}

export const HOST_GAVE_UP = "host gave up";

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function decoded(messageText: string): unknown {
  try {
    const json = Buffer.from(messageText, "base64").toString("utf8");
    return JSON.parse(json);
  } catch {
    return undefined;
  }
}

function countCompressed(zipped: string): number | undefined {
  try {
    const events = JSON.parse(gunzipSync(Buffer.from(zipped, "base64")).toString("utf8"));
    return Array.isArray(events) ? events.length : undefined;
  } catch {
    return undefined;
  }
}

/** The `{twinsInstanceId, events | eventsGzip}` of a message, when it has that shape. */
function eventsMessage(value: unknown): Json | undefined {
  if (!isObject(value) || typeof value.twinsInstanceId !== "string") return undefined;
  const { twinsInstanceId, events, eventsGzip } = value;
  if (Array.isArray(events) && eventsGzip === undefined) return { twinsInstanceId, events };
  if (typeof eventsGzip === "string" && events === undefined) return { twinsInstanceId, eventsGzip };
  return undefined;
}

function eventCount(message: Json | undefined): number | undefined {
  if (message === undefined) return undefined;
  if (Array.isArray(message.events)) return message.events.length;
  return typeof message.eventsGzip === "string" ? countCompressed(message.eventsGzip) : undefined;
}

export function encodeMessage(message: Json): string {
  return Buffer.from(JSON.stringify(message), "utf8").toString("base64");
}

/** A poison queue message's text, read. */
export function readPoisonMessage(messageText: string): PoisonReading {
  const value = decoded(messageText);
  const record = isObject(value) ? value : undefined;
  const reason = text(record?.reason);
  if (reason === undefined) {
    // Moved by the host as it was: it goes back as it was, whatever it holds.
    const original = eventsMessage(record);
    return {
      summary: {
        reason: HOST_GAVE_UP,
        twinsInstanceId: text(record?.twinsInstanceId),
        endpointName: text(isObject(record?.retry) ? record.retry.endpointName : undefined),
        events: eventCount(original),
        compressed: typeof original?.eventsGzip === "string",
        detail: record === undefined ? "not base64 JSON" : undefined,
        lastError: undefined,
        poisonedAt: undefined,
      },
      requeueText: messageText,
      whyNot: undefined,
    };
  }
  const held =
    eventsMessage(record) ?? (reason === "InvalidMessage" ? eventsMessage(record?.message) : undefined);
  const summary: PoisonSummary = {
    reason,
    twinsInstanceId: text(record?.twinsInstanceId) ?? text(held?.twinsInstanceId),
    endpointName: text(record?.endpointName),
    events: held === undefined ? (isObject(record?.eventLeftOut) ? 0 : undefined) : eventCount(held),
    compressed: typeof held?.eventsGzip === "string",
    detail: text(record?.detail),
    lastError: text(record?.lastError),
    poisonedAt: text(record?.poisonedAt),
  };
  if (held !== undefined) return { summary, requeueText: encodeMessage(held), whyNot: undefined };
  const whyNot = isObject(record?.eventLeftOut)
    ? `it names an event it could not hold (eventLeftOut ${text(record.eventLeftOut.id) ?? ""}): get it again from its producer`
    : "it holds no events to requeue (no twinsInstanceId with events or eventsGzip)";
  return { summary, requeueText: undefined, whyNot };
}
