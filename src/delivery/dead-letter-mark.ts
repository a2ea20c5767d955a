import { createHash, createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import { nameKey } from "../common/name-key";

/**
 * The service's mark on the dead letters it writes, so redelivery requeues those and nothing else.
 *
 * A dead-letter container belongs to the endpoint's owner, and anyone holding its SAS (or sharing
 * the container with another instance's endpoint of the same name) can put blobs under
 * `{endpointName}/`. Metadata alone proves nothing, as anyone who can write a blob can write its
 * metadata. So the writer adds an HMAC-SHA256 over what makes the dead letter this one: the
 * endpoint's id (its instance and name, as the service compares names: name-key.ts), the place it
 * was written (account and container: deadLetterPlace), the blob's name and the SHA-256 of its
 * body. The key is derived (HKDF) from SECRETS_ENCRYPTION_KEY, which never leaves the service; a
 * blob planted, copied to another name or another container (even one the endpoint is pointed at
 * later), given another body, or written for another instance's endpoint does not verify, so each
 * dead letter is redelivered from the one place it was written, and its claim and `redelivered`
 * mark there are the only ones that count. Keys of a rotation (SECRETS_ENCRYPTION_PREVIOUS_KEYS)
 * still verify what they marked: the mark names its key by a fingerprint of the derived key.
 *
 * Marks written before the place was bound (v1: no place, the id lower-cased) still verify, by
 * their own key's fingerprint (another HKDF info), so dead letters written before stay
 * redeliverable; a dead letter written again (dead-letter-writer.ts) gets a bound mark.
 *
 * What is not covered, and need not be: the delivery metadata (attempts, last error) and the
 * `redelivered` mark, which the service updates; clearing them only makes an event redelivered again.
 */
export const MARK_METADATA = "deadlettermark";
export const MARK_KEY_METADATA = "deadletterkey";

type Version = "v1" | "v2";
const INFO: Record<Version, string> = {
  v1: "twins-events/dead-letter-mark/v1",
  v2: "twins-events/dead-letter-mark/v2",
};

function deriveKey(secretsKey: Buffer, version: Version): Buffer {
  return Buffer.from(hkdfSync("sha256", secretsKey, Buffer.alloc(0), INFO[version], 32));
}

function fingerprint(key: Buffer): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 16);
}

/** The blob metadata that carry a mark. */
export type Mark = Record<typeof MARK_METADATA | typeof MARK_KEY_METADATA, string>;

/** What a mark is made over: the dead letter as the service wrote it, and where. */
export interface MarkedDeadLetter {
  endpointId: string;
  /** deadLetterPlace of the SAS URL it was written through. */
  place: string;
  blobName: string;
  body: Buffer | string;
}

interface MarkKey {
  version: Version;
  key: Buffer;
}

export class DeadLetterMarks {
  private readonly current: { id: string; key: Buffer };
  private readonly keys: Map<string, MarkKey>;

  /** `currentKey` marks; it and `previousKeys` verify (the SECRETS_ENCRYPTION_* keys). */
  constructor(currentKey: Buffer, previousKeys: Buffer[] = []) {
    const secrets = [currentKey, ...previousKeys];
    const derived = (["v2", "v1"] as const).flatMap((version) =>
      secrets.map((secret) => ({ version, key: deriveKey(secret, version) })),
    );
    this.keys = new Map(derived.map((entry) => [fingerprint(entry.key), entry]));
    const key = deriveKey(currentKey, "v2");
    this.current = { id: fingerprint(key), key };
  }

  mark(deadLetter: MarkedDeadLetter): Mark {
    return {
      [MARK_METADATA]: mac(this.current.key, "v2", deadLetter),
      [MARK_KEY_METADATA]: this.current.id,
    };
  }

  /** Whether `metadata` holds this service's mark for this endpoint, place, name and body. */
  verifies(metadata: Record<string, string> | undefined, deadLetter: MarkedDeadLetter): boolean {
    const given = metadata?.[MARK_METADATA];
    const key = this.keys.get(metadata?.[MARK_KEY_METADATA] ?? "");
    if (given === undefined || key === undefined) return false;
    const expected = Buffer.from(mac(key.key, key.version, deadLetter), "utf8");
    const actual = Buffer.from(given, "utf8");
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }
}

function mac(key: Buffer, version: Version, { endpointId, place, blobName, body }: MarkedDeadLetter): string {
  const bodyHash = createHash("sha256").update(body).digest("hex");
  // Newlines cannot occur in an endpoint id, a place or an encoded blob name: the parts cannot run
  // together. v1 lower-cased the id, which folds names ARM keeps apart ("K" and the Kelvin sign).
  const parts =
    version === "v1"
      ? [endpointId.toLowerCase(), blobName, bodyHash]
      : [nameKey(endpointId), place, blobName, bodyHash];
  return createHmac("sha256", key).update(parts.join("\n"), "utf8").digest("hex");
}
