import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { DomainError } from "../common/errors";

/**
 * Secrets at rest: AES-256-GCM under the service's key. Each sealed box names the key it was
 * sealed with by a fingerprint (not the key), so the key can be rotated: the new key seals, the
 * previous ones still open what they sealed. The document's own id is bound in as associated
 * data, so a box copied into another document does not open.
 */
export interface SealedBox {
  /** Fingerprint of the key that sealed it: the first 8 bytes of SHA-256(key), hex. */
  keyId: string;
  iv: string;
  ciphertext: string;
  tag: string;
}

export const KEY_BYTES = 32;

/** 500-class: stored secrets exist but this deployment cannot open them. Says why, never what. */
export class SecretsUnreadable extends DomainError {
  readonly status = 500;
  readonly code = "SecretsUnreadable";
}

export function keyFingerprint(key: Buffer): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 16);
}

export class SecretBox {
  private readonly current: { id: string; key: Buffer };
  private readonly keys: Map<string, Buffer>;

  /** `currentKey` seals; it and `previousKeys` open. */
  constructor(currentKey: Buffer, previousKeys: Buffer[] = []) {
    for (const key of [currentKey, ...previousKeys]) {
      if (key.length !== KEY_BYTES) throw new Error(`an encryption key must be ${KEY_BYTES} bytes`);
    }
    this.current = { id: keyFingerprint(currentKey), key: currentKey };
    this.keys = new Map([currentKey, ...previousKeys].map((key) => [keyFingerprint(key), key]));
  }

  get currentKeyId(): string {
    return this.current.id;
  }

  seal(plaintext: string, associatedData: string): SealedBox {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.current.key, iv);
    cipher.setAAD(Buffer.from(associatedData, "utf8"));
    const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return {
      keyId: this.current.id,
      iv: iv.toString("base64"),
      ciphertext: ciphertext.toString("base64"),
      tag: cipher.getAuthTag().toString("base64"),
    };
  }

  open(box: SealedBox, associatedData: string): string {
    const key = this.keys.get(box.keyId);
    if (!key) {
      throw new SecretsUnreadable(
        `Stored secrets were sealed with encryption key ${box.keyId}, which this deployment does not have ` +
          `(current key ${this.current.id}). Configure that key in SECRETS_ENCRYPTION_KEY or SECRETS_ENCRYPTION_PREVIOUS_KEYS.`,
      );
    }
    try {
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(box.iv, "base64"));
      decipher.setAAD(Buffer.from(associatedData, "utf8"));
      decipher.setAuthTag(Buffer.from(box.tag, "base64"));
      return Buffer.concat([
        decipher.update(Buffer.from(box.ciphertext, "base64")),
        decipher.final(),
      ]).toString("utf8");
    } catch {
      throw new SecretsUnreadable(
        `Stored secrets failed authentication under encryption key ${box.keyId}: the document was altered or moved.`,
      );
    }
  }
}
