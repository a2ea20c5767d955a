import type { TriggerMetadata } from "@azure/functions";
import type { ReceivedMessageItem } from "@azure/storage-queue";

export type DecodedQueueMessage = { ok: true; text: string; value: unknown } | { ok: false };

/**
 * The rules of .NET's Convert.FromBase64String, which the Functions host decodes with
 * (QueueMessageEncoding.Base64): whitespace is skipped, the rest must be whole 4-character groups
 * of the base64 alphabet with at most two '=' at the very end. Node's Buffer.from(text, "base64")
 * accepts almost anything, so it cannot be the judge.
 */
export function isBase64(messageText: string): boolean {
  const compact = messageText.replace(/[ \t\r\n]/g, "");
  return compact.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(compact);
}

/** What @azure/functions does with a string it receives from the host: JSON when it parses, else the text. */
function parseJsonOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** host.json `messageEncoding: base64`: the message text is base64 of UTF-8 bytes. */
export function decodeQueueMessage(messageText: string): DecodedQueueMessage {
  if (!isBase64(messageText)) return { ok: false };
  const text = Buffer.from(messageText, "base64").toString("utf8");
  return { ok: true, text, value: parseJsonOrText(text) };
}

/**
 * Dates as a Node function sees them from the real host: Newtonsoft's DateTimeOffset format,
 * e.g. "2024-05-01T12:00:00+00:00" (storage times are whole seconds).
 */
function hostDateString(date: Date | undefined): string | undefined {
  return date?.toISOString().replace(".000Z", "Z").replace(/Z$/, "+00:00");
}

/** The binding data the real queue trigger passes as context.triggerMetadata (keys camel-cased by the worker). */
export function queueTriggerMetadata(item: ReceivedMessageItem, value: unknown): TriggerMetadata {
  return {
    queueTrigger: value,
    dequeueCount: item.dequeueCount,
    expirationTime: hostDateString(item.expiresOn),
    id: item.messageId,
    insertionTime: hostDateString(item.insertedOn),
    nextVisibleTime: hostDateString(item.nextVisibleOn),
    popReceipt: item.popReceipt,
  };
}
