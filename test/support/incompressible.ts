import { randomBytes } from "node:crypto";

/**
 * `length` random printable ASCII characters: text gzip cannot shrink below what base64 then adds
 * back, so ingest sends events carrying it as plain messages, one large event a message, whatever
 * the compression threshold (src/events/queue-texts.ts). `"x".repeat(n)` would compress to almost
 * nothing and pack every event into one message.
 */
export function incompressibleText(length: number): string {
  return Array.from(randomBytes(length), (byte) => String.fromCharCode(0x20 + (byte % 95))).join("");
}
