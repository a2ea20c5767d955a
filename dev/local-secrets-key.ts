import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { localDataDir, writeWhole } from "./local-paths";
import type { Settings } from "./local-settings";
import { StartupError } from "./startup-error";

export interface LocalSecretsKey {
  /** Undefined when the settings bring their own key. */
  file: string | undefined;
  generated: boolean;
  /** How many keys of earlier rotations still open what they sealed. */
  previous: number;
}

const keyFile = (settings: Settings) => path.join(localDataDir(settings), "secrets-encryption-key");
/** The keys `npm run rotate-key` replaced, newest first, one a line. */
const previousKeysFile = (settings: Settings) =>
  path.join(localDataDir(settings), "secrets-encryption-previous-keys");
const newKey = () => `${randomBytes(32).toString("base64")}\n`;

/** The keys in a file, one a line (none when there is no file); refuses a damaged file: what its keys sealed would not open. */
function readKeys(file: string): string[] {
  if (!existsSync(file)) return [];
  const keys = readFileSync(file, "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
  const isKey = (text: string) =>
    /^[A-Za-z0-9+/]+={0,2}$/.test(text) && Buffer.from(text, "base64").length === 32;
  if (!keys.every(isKey)) throw damaged(file);
  return keys;
}

function damaged(file: string): StartupError {
  return new StartupError(
    `${file} does not hold 32-byte base64 keys, one a line: restore it (endpoints sealed with its keys will not open without it), or delete it to start without them.`,
  );
}

/**
 * When no SECRETS_ENCRYPTION_KEY is set, a local run gets its own random key (a committed sample
 * would be every machine's), kept beside the data it seals in LOCAL_DATA_DIR; the keys rotations
 * replaced join SECRETS_ENCRYPTION_PREVIOUS_KEYS, after any the settings name. Never prints a key.
 */
export function ensureLocalSecretsKey(settings: Settings): LocalSecretsKey {
  if (settings.SECRETS_ENCRYPTION_KEY?.trim()) return { file: undefined, generated: false, previous: 0 };
  const file = keyFile(settings);
  const generated = !existsSync(file);
  if (generated) writeWhole(file, newKey(), { exclusive: true });
  const [key, ...extra] = readKeys(file);
  if (key === undefined || extra.length > 0) throw damaged(file);
  settings.SECRETS_ENCRYPTION_KEY = key;
  const previous = readKeys(previousKeysFile(settings));
  const given = settings.SECRETS_ENCRYPTION_PREVIOUS_KEYS?.trim();
  const all = [...(given ? [given] : []), ...previous];
  if (all.length > 0) settings.SECRETS_ENCRYPTION_PREVIOUS_KEYS = all.join(",");
  return { file, generated, previous: previous.length };
}

/**
 * `npm run rotate-key`: the old key goes into the previous-keys file first (so it is never
 * nowhere), then a new one replaces it.
 */
export function rotateLocalSecretsKey(settings: Settings) {
  if (settings.SECRETS_ENCRYPTION_KEY?.trim()) {
    throw new StartupError(
      "SECRETS_ENCRYPTION_KEY is set (in local.settings.json or the environment), so the local key file is not used: rotate that key as docs/operations.md says (Rotating the encryption key).",
    );
  }
  const file = keyFile(settings);
  const [old] = readKeys(file);
  if (old === undefined)
    throw new StartupError(`There is no local key to rotate yet (${file}): npm start makes one.`);
  const previousFile = previousKeysFile(settings);
  const previous = [old, ...readKeys(previousFile).filter((key) => key !== old)];
  writeWhole(previousFile, `${previous.join("\n")}\n`);
  writeWhole(file, newKey());
  return { file, previousFile, previous: previous.length };
}
