import fc from "fast-check";
import type { z } from "zod";

/**
 * Turns a zod 4 schema into a fast-check arbitrary of values it (mostly) accepts, by walking
 * `schema._zod.def`. What the walk cannot see (refine / superRefine) is not honoured: callers
 * supply `overrides` for such fields.
 */

/** An override may yield OMIT to leave its field out of the object. */
export const OMIT: unique symbol = Symbol("omit");

export interface ZodArbitraryOptions {
  /** Arbitraries for object fields with these names, at any depth, instead of their schema's. */
  overrides?: Record<string, fc.Arbitrary<unknown>>;
  /** Longest generated string where the schema sets no maximum (default 24). */
  maxStringLength?: number;
  /** Longest generated array or record where the schema sets no maximum (default 4). */
  maxItems?: number;
}

/** The parts of `_zod.def` the walk reads; zod 4 keeps every kind's def in this one bag. */
interface Def {
  type: string;
  checks?: { _zod: { def: CheckDef } }[];
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  innerType?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  items?: z.ZodType[];
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  values?: unknown[];
  entries?: Record<string, string | number>;
  in?: z.ZodType;
  getter?: () => z.ZodType;
  format?: string;
  pattern?: RegExp;
}

interface CheckDef {
  check: string;
  format?: string;
  pattern?: RegExp;
  minimum?: number;
  maximum?: number;
  length?: number;
  value?: number | bigint;
  inclusive?: boolean;
}

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

function isOptional(schema: z.ZodType): boolean {
  return (schema as unknown as { _zod: { optin?: string } })._zod.optin === "optional";
}

export function zodArbitrary(schema: z.ZodType, options: ZodArbitraryOptions = {}): fc.Arbitrary<unknown> {
  return walk(schema, {
    overrides: options.overrides ?? {},
    maxStringLength: options.maxStringLength ?? 24,
    maxItems: options.maxItems ?? 4,
  });
}

type Settings = Required<ZodArbitraryOptions>;

function walk(schema: z.ZodType, settings: Settings): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  const checks = (def.checks ?? []).map((check) => check._zod.def);
  const inner = (child: z.ZodType | undefined) => (child ? walk(child, settings) : fc.constant(undefined));
  switch (def.type) {
    case "object":
      return objectArbitrary(def, settings);
    case "string":
      return stringArbitrary(def, checks, settings);
    case "number":
    case "int":
      return numberArbitrary(checks);
    case "bigint":
      return fc.bigInt();
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "undefined":
    case "void":
      return fc.constant(undefined);
    case "literal":
      return fc.constantFrom(...(def.values ?? [null]));
    case "enum":
      return fc.constantFrom(...Object.values(def.entries ?? {}));
    case "array": {
      const { min, max } = lengthBounds(checks, 0, settings.maxItems);
      return fc.array(inner(def.element), { minLength: min, maxLength: max });
    }
    case "tuple":
      return fc.tuple(...(def.items ?? []).map((item) => walk(item, settings)));
    case "union":
      return fc.oneof(...(def.options ?? []).map((option) => walk(option, settings)));
    case "nullable":
      return fc.option(inner(def.innerType), { nil: null, freq: 4 });
    case "optional":
      return fc.option(inner(def.innerType), { nil: undefined, freq: 4 });
    case "default":
    case "prefault":
    case "readonly":
    case "catch":
    case "nonoptional":
      return inner(def.innerType);
    case "pipe":
      return inner(def.in);
    case "lazy":
      return def.getter ? walk(def.getter(), settings) : fc.jsonValue({ maxDepth: 2 });
    case "record":
      return fc.dictionary(
        (def.keyType ? walk(def.keyType, settings) : fc.string()).map(String),
        inner(def.valueType),
        { maxKeys: settings.maxItems },
      );
    case "never":
      return fc.constant(undefined);
    default:
      // unknown, any, intersection, custom, ... : any JSON.
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Required fields always, optional fields about half the time; an override yielding OMIT drops the field. */
function objectArbitrary(def: Def, settings: Settings): fc.Arbitrary<Record<string, unknown>> {
  const fields = Object.entries(def.shape ?? {}).map(([key, field]) => {
    const override = settings.overrides[key];
    let value: fc.Arbitrary<unknown>;
    if (override) value = override;
    else if (isOptional(field)) {
      value = fc.oneof(fc.constant(OMIT), walk(unwrapOptional(field), settings));
    } else value = walk(field, settings);
    return value.map((generated) => [key, generated] as const);
  });
  return fc.tuple(...fields).map((pairs) => {
    const result: Record<string, unknown> = {};
    for (const [key, value] of pairs) if (value !== OMIT && value !== undefined) result[key] = value;
    return result;
  });
}

function unwrapOptional(schema: z.ZodType): z.ZodType {
  const def = defOf(schema);
  return def.type === "optional" && def.innerType ? def.innerType : schema;
}

function lengthBounds(checks: CheckDef[], min: number, defaultMax: number): { min: number; max: number } {
  let low = min;
  let high: number | undefined;
  for (const check of checks) {
    if (check.check === "min_length" && check.minimum !== undefined) low = Math.max(low, check.minimum);
    if (check.check === "max_length" && check.maximum !== undefined) high = check.maximum;
    if (check.check === "length_equals" && check.length !== undefined) low = high = check.length;
  }
  return { min: low, max: high ?? Math.max(low, defaultMax) };
}

/** Mostly printable ASCII, sometimes any grapheme, now and then any code unit (lone surrogates too). */
const textUnit = fc.oneof(
  { weight: 6, arbitrary: fc.constant("grapheme-ascii" as const) },
  { weight: 3, arbitrary: fc.constant("grapheme" as const) },
  { weight: 1, arbitrary: fc.constant("binary" as const) },
);

function stringArbitrary(def: Def, checks: CheckDef[], settings: Settings): fc.Arbitrary<string> {
  const { min, max } = lengthBounds(checks, 0, settings.maxStringLength);
  const patterns = checks.flatMap((check) =>
    check.check === "string_format" && check.pattern ? [check.pattern] : [],
  );
  const withinLength = (text: string) => text.length >= min && text.length <= max;
  const formatArbitrary = formatString(def);
  if (formatArbitrary) return formatArbitrary;
  const first = patterns[0];
  if (first) {
    const all = (text: string) =>
      patterns.every((pattern) => new RegExp(pattern.source, pattern.flags).test(text));
    return regexArbitrary(first).filter((text) => withinLength(text) && all(text));
  }
  // Lengths count graphemes in fast-check and UTF-16 code units in zod: filter on zod's count.
  return textUnit.chain((unit) => fc.string({ unit, minLength: min, maxLength: max })).filter(withinLength);
}

/** The string formats zod carries on the schema itself (z.iso.datetime(), z.url(), z.base64(), ...). */
function formatString(def: Def): fc.Arbitrary<string> | undefined {
  switch (def.format) {
    case "datetime":
      return fc.oneof(
        fc
          .date({
            min: new Date("1970-01-01T00:00:00Z"),
            max: new Date("2100-01-01T00:00:00Z"),
            noInvalidDate: true,
          })
          .map((date) => date.toISOString()),
        regexArbitrary(def.pattern ?? /^2026-11-22T08:00:00Z$/),
      );
    case "url":
      return fc.webUrl({ withQueryParameters: true, withFragments: true });
    case "base64":
      return fc.base64String({ maxLength: 64 });
    case "base64url":
      return fc
        .base64String({ maxLength: 64 })
        .map((text) => text.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""));
    case "email":
      return fc.emailAddress();
    case "uuid":
    case "guid":
      return fc.uuid();
    case undefined:
    case "regex":
      return undefined;
    default:
      return def.pattern ? regexArbitrary(def.pattern) : undefined;
  }
}

/**
 * fc.stringMatching, for patterns with lookarounds too: those fast-check cannot generate from, so
 * they are stripped for generation and enforced by filtering on the real pattern.
 */
export function regexArbitrary(pattern: RegExp): fc.Arbitrary<string> {
  try {
    return fc.stringMatching(pattern);
  } catch {
    const relaxed = new RegExp(stripLookarounds(pattern.source), pattern.flags);
    const exact = new RegExp(pattern.source, pattern.flags);
    return fc.stringMatching(relaxed).filter((text) => exact.test(text));
  }
}

/** Removes `(?=…)`, `(?!…)`, `(?<=…)` and `(?<!…)` groups (balanced, escapes and classes respected). */
export function stripLookarounds(source: string): string {
  let result = "";
  let index = 0;
  while (index < source.length) {
    const rest = source.slice(index);
    const lookaround = /^\(\?<?[=!]/.exec(rest);
    if (lookaround) {
      index += groupLength(source, index);
      continue;
    }
    const char = source[index] as string;
    const step = char === "\\" ? 2 : 1;
    result += source.slice(index, index + step);
    index += step;
  }
  return result;
}

function groupLength(source: string, start: number): number {
  let depth = 0;
  let inClass = false;
  for (let index = start; index < source.length; index++) {
    const char = source[index];
    if (char === "\\") {
      index++;
      continue;
    }
    if (inClass) {
      if (char === "]") inClass = false;
      continue;
    }
    if (char === "[") inClass = true;
    else if (char === "(") depth++;
    else if (char === ")" && --depth === 0) return index - start + 1;
  }
  return source.length - start;
}

function numberArbitrary(checks: CheckDef[]): fc.Arbitrary<number> {
  let integer = false;
  let min: number | undefined;
  let max: number | undefined;
  let minExcluded = false;
  let maxExcluded = false;
  for (const check of checks) {
    if (check.check === "number_format") integer = check.format !== "float32" && check.format !== "float64";
    if (check.check === "greater_than") {
      min = Number(check.value);
      minExcluded = check.inclusive !== true;
    }
    if (check.check === "less_than") {
      max = Number(check.value);
      maxExcluded = check.inclusive !== true;
    }
  }
  if (integer) {
    const low =
      min === undefined
        ? Number.MIN_SAFE_INTEGER
        : Math.ceil(min) + (minExcluded && Number.isInteger(min) ? 1 : 0);
    const high =
      max === undefined
        ? Number.MAX_SAFE_INTEGER
        : Math.floor(max) - (maxExcluded && Number.isInteger(max) ? 1 : 0);
    // Small values most of the time: they are the ones a service compares and counts.
    return fc.oneof(
      {
        weight: 4,
        arbitrary: fc.integer({
          min: Math.max(low, -1000),
          max: Math.max(Math.min(high, 1000), Math.max(low, -1000)),
        }),
      },
      { weight: 1, arbitrary: fc.integer({ min: low, max: high }) },
    );
  }
  return fc.double({
    noNaN: true,
    noDefaultInfinity: true,
    ...(min !== undefined && { min, minExcluded }),
    ...(max !== undefined && { max, maxExcluded }),
  });
}
