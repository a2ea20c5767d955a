import { InvalidRequestContent } from "../common/errors";

function snakeToCamel(name: string): string {
  return name.replace(/_+([A-Za-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
}

/**
 * Accepts the snake_case spelling of every field (language bindings expose both) by renaming
 * object keys to camelCase, recursively. Sending both spellings of one field is ambiguous: 400.
 */
export function camelCaseKeys(value: unknown, path: string[] = []): unknown {
  if (Array.isArray(value)) return value.map((item, index) => camelCaseKeys(item, [...path, String(index)]));
  if (value === null || typeof value !== "object") return value;
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const camel = key.includes("_") ? snakeToCamel(key) : key;
    if (Object.hasOwn(result, camel)) {
      throw new InvalidRequestContent(
        `The field '${[...path, camel].join(".")}' was sent twice, in camelCase and snake_case.`,
        [...path, camel].join("."),
      );
    }
    result[camel] = camelCaseKeys(item, [...path, camel]);
  }
  return result;
}
