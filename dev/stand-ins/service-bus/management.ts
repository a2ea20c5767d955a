import { type Message, message, type Receiver, types } from "rhea";
import { peekedMessage } from "./broker-annotations";
import type { ConnectionScope } from "./connection-scope";
import { lockTokenText } from "./lock-token";
import type { MessageQueue } from "./message-queue";
import { type Reply, serveRequests } from "./request-response";

/**
 * The minimum of a subscription's `$management` node the SDK reaches for on its own: renewing
 * locks (auto lock renewal), settling by lock token (when the receiving link is gone) and peeking.
 * Everything else (scheduling, deferral, sessions, rules) answers 501.
 */
const LOCK_LOST = "com.microsoft:message-lock-lost";
const TIMESTAMP_TYPE_CODE = 0x83;

const DISPOSITIONS: Record<string, "complete" | "abandon" | "deadLetter"> = {
  completed: "complete",
  abandoned: "abandon",
  suspended: "deadLetter",
};

/** `queue` is undefined for a topic's management node: nothing there is served. */
export function serveManagement(
  requests: Receiver,
  scope: ConnectionScope,
  queue: MessageQueue | undefined,
): void {
  serveRequests(requests, scope, (request) => {
    const operation: unknown = request.application_properties?.operation;
    try {
      if (queue === undefined) return notServed(operation);
      switch (operation) {
        case "com.microsoft:renew-lock":
          return renewLocks(queue, request);
        case "com.microsoft:update-disposition":
          return updateDisposition(queue, request);
        case "com.microsoft:peek-message":
          return peek(queue, request);
        default:
          return notServed(operation);
      }
    } catch (error) {
      return status(
        400,
        `Malformed ${String(operation)} request: ${(error as Error).message}`,
        "amqp:decode-error",
      );
    }
  });
}

function renewLocks(queue: MessageQueue, request: Message): Reply {
  const expirations = lockTokens(request).map((token) => queue.renew(token));
  if (expirations.some((expiry) => expiry === undefined)) return lockLost();
  const times = expirations.map((expiry) => expiry?.getTime());
  return {
    ...status(200, "OK"),
    body: { expirations: types.wrap_array(times, TIMESTAMP_TYPE_CODE, undefined) },
  };
}

function updateDisposition(queue: MessageQueue, request: Message): Reply {
  const disposition = DISPOSITIONS[String(requestBody(request)["disposition-status"])];
  if (disposition === undefined)
    return notServed("update-disposition other than completed/abandoned/suspended");
  const settled = lockTokens(request).map((token) => queue.settleElsewhere(token, disposition));
  return settled.every(Boolean) ? status(200, "OK") : lockLost();
}

function peek(queue: MessageQueue, request: Message): Reply {
  const body = requestBody(request);
  const from = longValue(body["from-sequence-number"]);
  const count = Number(body["message-count"] ?? 1);
  const peeked = queue.peek(from, count);
  // 204 is how Service Bus says "nothing there"; the SDK then reads no body.
  if (peeked.length === 0) return status(204, "No messages");
  const messages = peeked.map((entry) => ({ message: message.encode(peekedMessage(entry)) }));
  return { ...status(200, "OK"), body: { messages } };
}

function requestBody(request: Message): Record<string, unknown> {
  const body: unknown = request.body;
  if (typeof body !== "object" || body === null) throw new Error("the body is not a map");
  return body as Record<string, unknown>;
}

function lockTokens(request: Message): string[] {
  const tokens = requestBody(request)["lock-tokens"];
  if (!Array.isArray(tokens) || !tokens.every((token) => Buffer.isBuffer(token) && token.length === 16)) {
    throw new Error("lock-tokens is not an array of uuids");
  }
  return tokens.map((token: Buffer) => lockTokenText(token));
}

/** rhea decodes an AMQP long to a number when it fits, else to its 8 bytes. */
function longValue(value: unknown): number {
  if (Buffer.isBuffer(value) && value.length === 8) return Number(value.readBigInt64BE());
  if (typeof value === "number") return value;
  throw new Error("expected a long");
}

function status(code: number, description: string, condition?: string): Reply {
  const properties: Record<string, unknown> = { statusCode: code, statusDescription: description };
  if (condition !== undefined) properties.errorCondition = condition;
  return { application_properties: properties };
}

function lockLost(): Reply {
  return status(
    410,
    "The lock supplied is invalid. Either the lock expired, or the message has already been removed from the queue.",
    LOCK_LOST,
  );
}

function notServed(operation: unknown): Reply {
  return status(
    501,
    `The Service Bus stand-in does not implement ${String(operation)}; use the official emulator or a real namespace.`,
    "amqp:not-implemented",
  );
}
