import { z } from "../common/zod";
import { KEY_BYTES } from "./secret-box";

function decodesToKey(value: string): boolean {
  return /^[A-Za-z0-9+/]+={0,2}$/.test(value) && Buffer.from(value, "base64").length === KEY_BYTES;
}

/**
 * App Service resolves an app setting written `@Microsoft.KeyVault(…)` before the app starts; when
 * it cannot (the identity's Key Vault role not yet in force, which can take minutes after the role
 * is assigned, or a vault it cannot reach), the app sees the reference text itself. Case aside, as
 * the platform reads it.
 */
const KEY_VAULT_REFERENCE = /^\s*@microsoft\.keyvault\(/i;

/**
 * A secret setting that still holds its Key Vault reference: not an error at load, as the platform
 * may resolve it later (after a restart or a refresh of the references, infra/README.md). What needs
 * the secret answers 503 meanwhile, and says why (src/secrets/secret-keys.ts). The reference itself
 * is no secret, but it is not kept: the reason names the setting only.
 */
export class PendingSecret {
  constructor(readonly setting: string) {}

  get reason(): string {
    return `${this.setting} is an unresolved Key Vault reference`;
  }
}

/** `setting`'s value: pending while it is a Key Vault reference, else what `parse` makes of it. */
function pendingOr<T>(setting: string, error: string, parse: (value: string) => T | undefined) {
  return z.string().transform((value, ctx): T | PendingSecret => {
    if (KEY_VAULT_REFERENCE.test(value)) return new PendingSecret(setting);
    const parsed = parse(value);
    if (parsed !== undefined) return parsed;
    ctx.addIssue({ code: "custom", message: error });
    return z.NEVER;
  });
}

/** A 32-byte AES key written in base64 (`openssl rand -base64 32`). The value is never echoed. */
export const encryptionKeySetting = pendingOr(
  "SECRETS_ENCRYPTION_KEY",
  `must be ${KEY_BYTES} random bytes in base64 (generate one with: openssl rand -base64 32)`,
  (value) => (decodesToKey(value) ? Buffer.from(value, "base64") : undefined),
);

/** Earlier keys, comma-separated, kept so secrets sealed before a rotation still open. */
export const previousKeysSetting = pendingOr(
  "SECRETS_ENCRYPTION_PREVIOUS_KEYS",
  `must be a comma-separated list of ${KEY_BYTES}-byte keys in base64`,
  (value) => {
    const parts = value.split(",").map((part) => part.trim());
    return parts.every(decodesToKey) ? parts.map((part) => Buffer.from(part, "base64")) : undefined;
  },
);
