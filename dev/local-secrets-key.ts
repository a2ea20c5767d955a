import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { localDataDir } from "./local-paths";
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

function isKey(text: string): boolean {
  return /^[A-Za-z0-9+/]+={0,2}$/.test(text) && Buffer.from(text, "base64").length === 32;
}

function newKey(): string {
  return randomBytes(32).toString("base64");
}

/** The key in the key file; refuses a damaged one (the data it sealed would not open). */
function readKeyFile(file: string): string {
  const key = readFileSync(file, "utf8").trim();
  if (!isKey(key)) {
    throw new StartupError(
      `${file} does not hold a 32-byte base64 key; restore it, or delete it to get a new one (endpoints sealed with the old key will not open).`,
    );
  }
  return key;
}

function readPreviousKeys(file: string): string[] {
  if (!existsSync(file)) return [];
  const keys = readFileSync(file, "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  if (!keys.every(isKey)) {
    throw new StartupError(
      `${file} holds a line that is not a 32-byte base64 key; restore it (endpoints sealed with those keys will not open without it).`,
    );
  }
  return keys;
}

/** Written aside (owner-only) and renamed into place: neither a crash nor a reader sees half a file. */
export function replaceFile(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const aside = `${file}.${process.pid}.tmp`;
  writeFileSync(aside, text, { mode: 0o600 });
  renameSync(aside, file);
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
  if (generated) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${newKey()}\n`, { mode: 0o600, flag: "wx" });
  }
  settings.SECRETS_ENCRYPTION_KEY = readKeyFile(file);
  const previous = readPreviousKeys(previousKeysFile(settings));
  const given = settings.SECRETS_ENCRYPTION_PREVIOUS_KEYS?.trim();
  const all = [...(given ? [given] : []), ...previous];
  if (all.length > 0) settings.SECRETS_ENCRYPTION_PREVIOUS_KEYS = all.join(",");
  return { file, generated, previous: previous.length };
}

/**
 * `npm run rotate-key`: the old key goes into the previous-keys file first (so it is never
 * nowhere), then a new one replaces it.
 */
export function rotateLocalSecretsKey(settings: Settings): {
  file: string;
  previousFile: string;
  previous: number;
} {
  if (settings.SECRETS_ENCRYPTION_KEY?.trim()) {
    throw new StartupError(
      "SECRETS_ENCRYPTION_KEY is set (in local.settings.json or the environment), so the local key file is not used: rotate that key as docs/operations.md says (Rotating the encryption key).",
    );
  }
  const file = keyFile(settings);
  if (!existsSync(file))
    throw new StartupError(`There is no local key to rotate yet (${file}): npm start makes one.`);
  const old = readKeyFile(file);
  const previousFile = previousKeysFile(settings);
  const previous = [old, ...readPreviousKeys(previousFile).filter((key) => key !== old)];
  replaceFile(previousFile, `${previous.join("\n")}\n`);
  replaceFile(file, `${newKey()}\n`);
  return { file, previousFile, previous: previous.length };
}
