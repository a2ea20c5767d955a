import { describeLocation, describePointer, parseStrictJson } from "../common/strict-json";

/**
 * Keys that would put a credential into a profile; a profile names how to authenticate, it must
 * not carry the secret itself. Compared case-insensitively, at any depth of the content object.
 */
export const CREDENTIAL_KEYS = [
  "AccessKeyID",
  "access_key_id",
  "SecretAccessKey",
  "secret_access_key_id",
  "PWD",
  "Password",
  "AuthProfile",
  "auth_profile",
] as const;

const credentialKeys = new Set(CREDENTIAL_KEYS.map((key) => key.toLowerCase()));

function findCredentialKey(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = findCredentialKey(item);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value === null || typeof value !== "object") return undefined;
  for (const [key, item] of Object.entries(value)) {
    if (credentialKeys.has(key.toLowerCase())) return key;
    const found = findCredentialKey(item);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Why the content is not acceptable, or undefined when it is. Never quotes a value. */
export function contentProblem(content: string): string | undefined {
  const result = parseStrictJson(content);
  if (!result.ok) {
    const { refusal } = result;
    switch (refusal.reason) {
      case "syntax":
        return `must be a JSON object serialized as a string, but it is not valid JSON: ${refusal.message}`;
      case "too-deep":
        return `must not nest deeper than ${refusal.maxDepth} levels`;
      case "duplicate-member":
        return `must not repeat a member name (RFC 7493), but it has '${describePointer(refusal.pointer)}' more than once`;
      case "lone-surrogate":
        return `must not hold a lone surrogate (an unpaired \\uD800-\\uDFFF escape, RFC 7493), but the string at ${describeLocation(refusal.pointer)} does`;
      case "number-out-of-range":
        return `must not hold a number beyond the range of a double (RFC 7493), but the one at ${describeLocation(refusal.pointer)} is`;
    }
  }
  const parsed = result.value;
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    return "must be a JSON object serialized as a string";
  }
  const credentialKey = findCredentialKey(parsed);
  if (credentialKey !== undefined) {
    return `must not carry credentials, but it has the key '${credentialKey}'`;
  }
  return undefined;
}

export function utf8Length(text: string): number {
  return Buffer.byteLength(text, "utf8");
}
