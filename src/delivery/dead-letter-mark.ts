import { createHash, createHmac, hkdfSync, timingSafeEqual } from "node:crypto";

/**
 * The service's mark on the dead letters it writes, so redelivery requeues those and nothing else.
 *
 * A dead-letter container belongs to the endpoint's owner, and anyone holding its SAS (or sharing
 * the container with another instance's endpoint of the same name) can put blobs under
 * `{endpointName}/`. Metadata alone proves nothing, as anyone who can write a blob can write its
 * metadata. So the writer adds an HMAC-SHA256 over what makes the dead letter this one: the
 * endpoint's id (its instance and name, lower-cased), the blob's name and the SHA-256 of its body.
 * The key is derived (HKDF) from SECRETS_ENCRYPTION_KEY, which never leaves the service; a blob
 * planted, copied to another name, given another body, or written for another instance's endpoint
 * does not verify. Keys of a rotation (SECRETS_ENCRYPTION_PREVIOUS_KEYS) still verify what they
 * marked: the mark names its key by a fingerprint of the derived key.
 *
 * What is not covered, and need not be: the delivery metadata (attempts, last error) and the
 * `redelivered` mark, which the service updates; clearing them only makes an event redelivered again.
 */
export const MARK_METADATA = "deadlettermark";
export const MARK_KEY_METADATA = "deadletterkey";

const INFO = "twins-events/dead-letter-mark/v1";

function deriveKey(secretsKey: Buffer): Buffer {
  return Buffer.from(hkdfSync("sha256", secretsKey, Buffer.alloc(0), INFO, 32));
}

function fingerprint(key: Buffer): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 16);
}

/** The blob metadata that carry a mark. */
export type Mark = Record<typeof MARK_METADATA | typeof MARK_KEY_METADATA, string>;

export class DeadLetterMarks {
  private readonly current: { id: string; key: Buffer };
  private readonly keys: Map<string, Buffer>;

  /** `currentKey` marks; it and `previousKeys` verify (the SECRETS_ENCRYPTION_* keys). */
  constructor(currentKey: Buffer, previousKeys: Buffer[] = []) {
    const derived = [currentKey, ...previousKeys].map(deriveKey);
    this.keys = new Map(derived.map((key) => [fingerprint(key), key]));
    const key = derived[0] as Buffer;
    this.current = { id: fingerprint(key), key };
  }

  mark(endpointId: string, blobName: string, body: Buffer | string): Mark {
    return {
      [MARK_METADATA]: mac(this.current.key, endpointId, blobName, body),
      [MARK_KEY_METADATA]: this.current.id,
    };
  }

  /** Whether `metadata` holds this service's mark for this endpoint, name and body. */
  verifies(
    metadata: Record<string, string> | undefined,
    endpointId: string,
    blobName: string,
    body: Buffer | string,
  ): boolean {
    const given = metadata?.[MARK_METADATA];
    const key = this.keys.get(metadata?.[MARK_KEY_METADATA] ?? "");
    if (given === undefined || key === undefined) return false;
    const expected = Buffer.from(mac(key, endpointId, blobName, body), "utf8");
    const actual = Buffer.from(given, "utf8");
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }
}

function mac(key: Buffer, endpointId: string, blobName: string, body: Buffer | string): string {
  const bodyHash = createHash("sha256").update(body).digest("hex");
  // Newlines cannot occur in an endpoint id or an encoded blob name: the parts cannot run together.
  return createHmac("sha256", key)
    .update(`${endpointId.toLowerCase()}\n${blobName}\n${bodyHash}`, "utf8")
    .digest("hex");
}
