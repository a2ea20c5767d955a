import type { ReceivedMessageItem } from "@azure/storage-queue";
import type { RpcTypedData } from "./functions-worker";

export type DecodedQueueMessage = { ok: true; text: string } | { ok: false };

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

/** host.json `messageEncoding: base64`: the message text is base64 of UTF-8 bytes. */
export function decodeQueueMessage(messageText: string): DecodedQueueMessage {
  if (!isBase64(messageText)) return { ok: false };
  const text = Buffer.from(messageText, "base64").toString("utf8");
  return { ok: true, text };
}

/**
 * The binding data the real queue trigger sends with a message, as the host puts it on the wire:
 * PascalCase names (the worker's library camel-cases them into context.triggerMetadata), numbers
 * as JSON, the rest as text; dates in Newtonsoft's DateTimeOffset format, "2024-05-01T12:00:00+00:00".
 */
export function queueTriggerMetadata(item: ReceivedMessageItem): Record<string, RpcTypedData> {
  const metadata: Record<string, RpcTypedData> = {
    DequeueCount: { json: String(item.dequeueCount) },
    Id: { string: item.messageId },
    PopReceipt: { string: item.popReceipt },
  };
  const dates = {
    ExpirationTime: item.expiresOn,
    InsertionTime: item.insertedOn,
    NextVisibleTime: item.nextVisibleOn,
  };
  for (const [name, date] of Object.entries(dates)) {
    if (date) metadata[name] = { string: date.toISOString().replace(".000Z", "Z").replace(/Z$/, "+00:00") };
  }
  return metadata;
}
