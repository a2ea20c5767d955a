import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { localDataDir } from "./local-paths";
import type { Settings } from "./local-settings";
import { StartupError } from "./startup-error";

export interface LocalSecretsKey {
  /** Where the key is kept; undefined when the settings bring their own key. */
  file: string | undefined;
  generated: boolean;
}

/**
 * Endpoint secrets are sealed with SECRETS_ENCRYPTION_KEY. A committed sample key would be the
 * same on every machine, so when none is set a local run gets its own random key, kept beside the
 * data it seals (in LOCAL_DATA_DIR, git-ignored) and reused on later starts so that data stays
 * readable. Sets the key in `settings`; never prints it.
 */
export function ensureLocalSecretsKey(settings: Settings): LocalSecretsKey {
  if (settings.SECRETS_ENCRYPTION_KEY?.trim()) return { file: undefined, generated: false };
  const file = path.join(localDataDir(settings), "secrets-encryption-key");
  const generated = !existsSync(file);
  if (generated) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${randomBytes(32).toString("base64")}\n`, { mode: 0o600, flag: "wx" });
  }
  const key = readFileSync(file, "utf8").trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(key) || Buffer.from(key, "base64").length !== 32) {
    throw new StartupError(
      `${file} does not hold a 32-byte base64 key; restore it, or delete it to get a new one (endpoints sealed with the old key will not open).`,
    );
  }
  settings.SECRETS_ENCRYPTION_KEY = key;
  return { file, generated };
}
