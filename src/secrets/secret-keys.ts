import { ServiceUnavailable } from "../common/errors";
import type { AppConfig } from "../config";
import { PendingSecret } from "./encryption-key-setting";
import { SecretBox } from "./secret-box";

/**
 * A pending key setting (encryption-key-setting.ts) resolves when the app restarts with the
 * references resolved, which a refresh of the references does (infra/README.md): a caller may
 * well try again within the minute.
 */
export const SECRETS_PENDING_RETRY_AFTER_SECONDS = 30;

type KeySettings = Pick<AppConfig, "SECRETS_ENCRYPTION_KEY" | "SECRETS_ENCRYPTION_PREVIOUS_KEYS">;

export interface SecretKeys {
  /** Seals (and opens). */
  current: Buffer;
  /** Open what they sealed before a rotation. */
  previous: Buffer[];
}

/** Why the keys cannot be had yet ("SECRETS_ENCRYPTION_KEY is an unresolved Key Vault reference"), or undefined. */
export function pendingSecretsReason(config: KeySettings): string | undefined {
  const pending = [config.SECRETS_ENCRYPTION_KEY, config.SECRETS_ENCRYPTION_PREVIOUS_KEYS].filter(
    (setting) => setting instanceof PendingSecret,
  );
  return pending.length === 0 ? undefined : pending.map((setting) => setting.reason).join("; ");
}

/** 503 naming the pending setting: what needs the keys cannot be done yet, but will be. */
export function secretsPending(reason: string): ServiceUnavailable {
  return new ServiceUnavailable(
    `${reason}: endpoint secrets cannot be sealed or opened until the app has the key. Try again later.`,
    SECRETS_PENDING_RETRY_AFTER_SECONDS,
  );
}

/** The keys, or a 503 (ServiceUnavailable) while a key setting is pending. */
export function secretKeys(config: KeySettings): SecretKeys {
  const current = config.SECRETS_ENCRYPTION_KEY;
  const previous = config.SECRETS_ENCRYPTION_PREVIOUS_KEYS ?? [];
  if (current instanceof PendingSecret || previous instanceof PendingSecret)
    throw secretsPending(pendingSecretsReason(config) ?? "");
  return { current, previous };
}

/** What seals and opens endpoint secrets: the SecretBox, or while a key is pending one that answers 503. */
export type Sealer = Pick<SecretBox, "seal" | "open" | "currentKeyId">;

/**
 * A SecretBox of the keys; while a key setting is pending, a stand-in whose every seal and open
 * throws the 503, so that only what touches a secret fails (deleting an endpoint does not).
 */
export function secretSealer(config: KeySettings): Sealer {
  const reason = pendingSecretsReason(config);
  if (reason === undefined) {
    const { current, previous } = secretKeys(config);
    return new SecretBox(current, previous);
  }
  const refuse = (): never => {
    throw secretsPending(reason);
  };
  return {
    seal: refuse,
    open: refuse,
    get currentKeyId(): string {
      return refuse();
    },
  };
}
