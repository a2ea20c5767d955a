import { randomBytes } from "node:crypto";
import { uuid_to_string } from "rhea";

/**
 * A peek-lock delivery's tag is its lock token. Service Bus sends the GUID in .NET byte order and
 * the SDK reorders the first three groups before printing it, so the token the SDK shows (and later
 * sends to `$management`) is the reordered one: this module produces both from one random value.
 */
export interface LockToken {
  /** The 16 bytes sent as the delivery tag. */
  deliveryTag: Buffer;
  /** The token as the SDK shows it (`message.lockToken`) and sends it back. */
  text: string;
}

export function newLockToken(): LockToken {
  const deliveryTag = randomBytes(16);
  return { deliveryTag, text: uuid_to_string(dotNetGuidOrder(deliveryTag)) };
}

/** The lock token as the SDK shows it, for a uuid the SDK sent in a `$management` request. */
export function lockTokenText(uuid: Buffer): string {
  return uuid_to_string(uuid);
}

function dotNetGuidOrder(bytes: Buffer): Buffer {
  const [b0, b1, b2, b3, b4, b5, b6, b7] = bytes;
  return Buffer.from([
    b3 ?? 0,
    b2 ?? 0,
    b1 ?? 0,
    b0 ?? 0,
    b5 ?? 0,
    b4 ?? 0,
    b7 ?? 0,
    b6 ?? 0,
    ...bytes.subarray(8),
  ]);
}
