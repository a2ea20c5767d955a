import { z } from "zod";
import { KEY_BYTES } from "./secret-box";

function decodesToKey(value: string): boolean {
  return /^[A-Za-z0-9+/]+={0,2}$/.test(value) && Buffer.from(value, "base64").length === KEY_BYTES;
}

/** A 32-byte AES key written in base64 (`openssl rand -base64 32`). The value is never echoed. */
export const encryptionKeySetting = z
  .string()
  .refine(
    decodesToKey,
    `must be ${KEY_BYTES} random bytes in base64 (generate one with: openssl rand -base64 32)`,
  )
  .transform((value) => Buffer.from(value, "base64"));

/** Earlier keys, comma-separated, kept so secrets sealed before a rotation still open. */
export const previousKeysSetting = z
  .string()
  .refine(
    (value) => value.split(",").every((part) => decodesToKey(part.trim())),
    `must be a comma-separated list of ${KEY_BYTES}-byte keys in base64`,
  )
  .transform((value) => value.split(",").map((part) => Buffer.from(part.trim(), "base64")));
