import { type ErrorDetail, invalidRequest } from "../common/errors";
import { z } from "../common/zod";

function detailCode(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "invalid_type":
      return "InvalidType";
    case "unrecognized_keys":
      return "UnknownProperty";
    case "too_big":
      return "ValueTooLarge";
    case "too_small":
      return "ValueTooSmall";
    case "invalid_format":
      return "InvalidFormat";
    case "invalid_value":
      return "InvalidValue";
    default:
      return "InvalidValue";
  }
}

/** The value at a path of the input; zod leaves it off issues so that no value reaches a message. */
function valueAt(input: unknown, path: PropertyKey[]): unknown {
  return path.reduce<unknown>(
    (current, key) =>
      current !== null && typeof current === "object"
        ? (current as Record<PropertyKey, unknown>)[key]
        : undefined,
    input,
  );
}

/**
 * One detail a failing field; an unknown-keys issue becomes one detail per unknown key. The
 * message is the field, then the rule it breaks in plain words (src/common/zod-messages.ts, or
 * the schema's own): `The field 'specversion' must be "1.0".`; `whole` is what the input is
 * called when the issue is about all of it.
 */
function toDetails(issue: z.core.$ZodIssue, input: unknown, whole: string): ErrorDetail[] {
  const path = issue.path.map(String);
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => ({
      code: "UnknownProperty",
      message: `The property '${[...path, key].join(".")}' is not known.`,
      target: [...path, key].join("."),
    }));
  }
  const target = path.join(".");
  const subject = target === "" ? whole : `The field '${target}'`;
  const message =
    issue.code === "invalid_type" && valueAt(input, issue.path) === undefined
      ? `${subject} is required.`
      : `${subject} ${issue.message}.`;
  return [{ code: detailCode(issue), message, target }];
}

/**
 * Parses with a zod schema or throws a 400 listing every failing field. `whole` names the input
 * in a message about all of it (`The request body must be an object, but it is an array.`).
 */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  input: unknown,
  whole = "The request body",
): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw invalidRequest(result.error.issues.flatMap((issue) => toDetails(issue, input, whole)));
}

/** `{ [name]: schema }` as a zod object, made once per parameter and schema. */
const wrappers = new WeakMap<z.ZodType, Map<string, z.ZodObject>>();

function wrapperOf(name: string, schema: z.ZodType): z.ZodObject {
  let byName = wrappers.get(schema);
  if (byName === undefined) {
    byName = new Map();
    wrappers.set(schema, byName);
  }
  let wrapper = byName.get(name);
  if (wrapper === undefined) {
    wrapper = z.object({ [name]: schema });
    byName.set(name, wrapper);
  }
  return wrapper;
}

/** Validates one path or query parameter, reporting it under its own name as the target. */
export function parseParameter<S extends z.ZodType>(name: string, schema: S, value: unknown): z.infer<S> {
  const parsed = parseOrThrow(wrapperOf(name, schema), { [name]: value }) as Record<string, z.infer<S>>;
  return parsed[name] as z.infer<S>;
}
