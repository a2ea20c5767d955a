/**
 * Names for endpoints created without one: `<logical name>-<7 random chars>`, as Pulumi auto-names,
 * always valid under the endpoint-name rule (3-50 letters, digits or hyphens, not all digits, not
 * starting or ending with a hyphen), whatever the logical name holds.
 */
export const AUTO_NAME_SUFFIX_LENGTH = 7;
const MAX_ENDPOINT_NAME_LENGTH = 50;
const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

/** `length` characters of [a-z0-9], uniformly, from the platform's cryptographic random source. */
export function randomSuffix(length = AUTO_NAME_SUFFIX_LENGTH): string {
  let suffix = "";
  const bytes = new Uint8Array(length * 2);
  while (suffix.length < length) {
    crypto.getRandomValues(bytes);
    for (const byte of bytes) {
      // 252 = 7 × 36: larger bytes are dropped so every character is equally likely.
      if (byte < 252 && suffix.length < length) suffix += ALPHABET[byte % ALPHABET.length];
    }
  }
  return suffix;
}

export function autoName(logicalName: string, suffix: string = randomSuffix()): string {
  const room = MAX_ENDPOINT_NAME_LENGTH - suffix.length - 1;
  const prefix = logicalName
    .replace(/[^A-Za-z0-9-]+/g, "-")
    .replace(/^-+/, "")
    .slice(0, room)
    .replace(/-+$/, "");
  return `${prefix === "" ? "endpoint" : prefix}-${suffix}`;
}
