/**
 * zod's issues in plain words, for every message that may reach a person: a 400's details, a
 * setting refused at start-up, a poisoned queue message's log line. zod's English reads as a
 * type checker's (`Invalid input: expected "1.0"`, `Too small: expected string to have >=1
 * characters`); these are the rule the value breaks, said as the rest of a sentence whose subject
 * is the field, so whoever reports an issue puts its field first:
 * `specversion` + `must be "1.0"`, `id` + `must not be empty`, `AUTH_MODE` + `is required`.
 *
 * src/common/zod.ts makes `issueMessage` zod's `customError`, once, so every schema speaks so; a
 * message a schema gives itself (`.regex(pattern, "must be a GUID")`) still wins. No message quotes
 * the value (it may be a secret): it names the value's kind ("but it is a number") at most. The
 * values a rule allows (an enum's, a literal's) come from the schema, and are quoted.
 *
 * The issue is read by shape rather than through zod's types: src/common/zod.ts imports this, and
 * this importing zod (types included) back would make a cycle the layering check refuses.
 */

/** An issue as zod hands it to an error map (`input` still on it), or finalized (nested in another). */
export interface IssueLike {
  readonly code?: string;
  readonly message?: string;
  readonly path?: readonly PropertyKey[];
  readonly input?: unknown;
  readonly inst?: unknown;
  readonly expected?: string;
  readonly values?: readonly unknown[];
  readonly origin?: string;
  readonly minimum?: unknown;
  readonly maximum?: unknown;
  readonly inclusive?: boolean;
  readonly exact?: boolean;
  readonly format?: string;
  readonly pattern?: unknown;
  readonly prefix?: string;
  readonly suffix?: string;
  readonly includes?: string;
  readonly divisor?: unknown;
  readonly keys?: readonly string[];
  readonly errors?: readonly (readonly IssueLike[])[];
  readonly issues?: readonly IssueLike[];
  readonly options?: readonly unknown[];
}

const A_KIND: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  bigint: "an integer",
  object: "an object",
  record: "an object",
  array: "an array",
  tuple: "an array",
  null: "null",
  undefined: "absent",
  void: "absent",
  date: "a date",
  nan: "NaN",
  symbol: "a symbol",
  function: "a function",
  map: "a map",
  set: "a set",
  file: "a file",
  promise: "a promise",
};

/** What a value is, by kind only: the value itself is never quoted. */
export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (value instanceof Date) return "a date";
  switch (typeof value) {
    case "string":
      return "a string";
    case "number":
      return Number.isNaN(value) ? "NaN" : Number.isFinite(value) ? "a number" : "infinite";
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      return "an integer";
    case "undefined":
      return "absent";
    case "object":
      return "an object";
    default:
      return `a ${typeof value}`;
  }
}

/** A value a schema allows, as written in JSON where it can be. */
function literal(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "bigint") return String(value);
  return value === undefined ? "absent" : String(value);
}

/** "a", "a or b", "a, b or c". */
function oneOf(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? "";
  return `${items.slice(0, -1).join(", ")} or ${items[items.length - 1]}`;
}

/** A member name from the input, for a message: quoted, long ones cut. */
function memberName(name: string): string {
  const shown = name.length > 60 ? `${name.slice(0, 60)}…` : name;
  return `'${shown}'`;
}

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

function invalidType(issue: IssueLike): string {
  const { expected = "", input } = issue;
  if (expected === "never") return "must not be given";
  if (input === undefined) return "is required";
  if (typeof input === "number" && (expected === "number" || expected === "int") && !Number.isFinite(input)) {
    return "must be a finite number";
  }
  if (expected === "int" && typeof input === "number") return "must be a whole number, but it has a fraction";
  return `must be ${A_KIND[expected] ?? `a ${expected}`}, but it is ${kindOf(input)}`;
}

function invalidValue(issue: IssueLike): string {
  const values = issue.values ?? [];
  if (values.length === 0) return "is not allowed";
  if (values.length === 1) return `must be ${literal(values[0])}`;
  return `must be ${choice(values)}`;
}

/** `"a" or "b"`; `one of "a", "b" or "c"`. */
function choice(values: readonly unknown[]): string {
  const listed = oneOf(values.map(literal));
  return values.length > 2 ? `one of ${listed}` : listed;
}

/** The units of a length or size, by the issue's origin; undefined for a number or date. */
const UNITS: Record<string, [string, string, string]> = {
  // [one, many, verb]: "must be at least 3 characters long", "must have at most 2 items".
  string: ["character", "characters", "long"],
  array: ["item", "items", "have"],
  set: ["item", "items", "have"],
  map: ["entry", "entries", "have"],
  file: ["byte", "bytes", "long"],
};

function bound(value: unknown, origin: string | undefined): string {
  if (value instanceof Date) return value.toISOString();
  if (origin === "date" && typeof value === "number") return new Date(value).toISOString();
  return String(value);
}

function sizeRule(issue: IssueLike, big: boolean): string {
  const raw = big ? issue.maximum : issue.minimum;
  const origin = issue.origin;
  const units = origin === undefined ? undefined : UNITS[origin];
  if (units !== undefined && typeof raw === "number") {
    const [one, many, verb] = units;
    // A length is whole: "less than 5" is "at most 4".
    const n = issue.exact || issue.inclusive ? raw : big ? raw - 1 : raw + 1;
    const amount = count(n, one, many);
    if (issue.exact)
      return verb === "long" ? `must be exactly ${amount} long` : `must have exactly ${amount}`;
    if (!big && n === 1 && origin === "string") return "must not be empty";
    const limit = big ? "at most" : "at least";
    return verb === "long" ? `must be ${limit} ${amount} long` : `must have ${limit} ${amount}`;
  }
  const value = bound(raw, origin);
  if (origin === "date") {
    if (big) return issue.inclusive ? `must be on or before ${value}` : `must be before ${value}`;
    return issue.inclusive ? `must be on or after ${value}` : `must be after ${value}`;
  }
  if (issue.exact) return `must be ${value}`;
  if (raw === Number.MAX_SAFE_INTEGER || raw === Number.MIN_SAFE_INTEGER) {
    return `must be ${big ? "at most" : "at least"} ${value} (a whole number a double holds exactly)`;
  }
  if (!big && issue.inclusive && Number(raw) === 0) return "must not be negative";
  if (!big && !issue.inclusive && Number(raw) === 0) return "must be greater than 0";
  if (big) return issue.inclusive ? `must be at most ${value}` : `must be less than ${value}`;
  return issue.inclusive ? `must be at least ${value}` : `must be greater than ${value}`;
}

/** The definition of the schema that raised the issue (a date-time's offset rule), when it has one. */
function definitionOf(issue: IssueLike): Record<string, unknown> {
  const zod = (issue.inst as { _zod?: { def?: Record<string, unknown> } } | undefined)?._zod;
  return zod?.def ?? {};
}

const FORMATS: Record<string, string> = {
  email: "an email address",
  url: "an absolute URL",
  emoji: "an emoji",
  uuid: "a UUID (32 hexadecimal digits as 8-4-4-4-12)",
  uuidv4: "a version 4 UUID",
  uuidv6: "a version 6 UUID",
  uuidv7: "a version 7 UUID",
  guid: "a GUID (32 hexadecimal digits as 8-4-4-4-12)",
  nanoid: "a Nano ID",
  cuid: "a CUID",
  cuid2: "a CUID2",
  ulid: "a ULID",
  xid: "an XID",
  ksuid: "a KSUID",
  date: "a date as YYYY-MM-DD",
  time: "a time of day as HH:MM:SS",
  duration: "an ISO 8601 duration, such as PT1H30M",
  ipv4: "an IPv4 address",
  ipv6: "an IPv6 address",
  mac: "a MAC address",
  cidrv4: "an IPv4 range in CIDR notation, such as 10.0.0.0/8",
  cidrv6: "an IPv6 range in CIDR notation",
  base64: "base64 (A-Z, a-z, 0-9, '+' and '/', padded with '=' to a multiple of 4 characters)",
  base64url: "base64url (A-Z, a-z, 0-9, '-' and '_')",
  json_string: "JSON text",
  e164: "a phone number in E.164 form, such as +14155550123",
  jwt: "a JSON Web Token",
  lowercase: "in lower case",
  uppercase: "in upper case",
};

function invalidFormat(issue: IssueLike): string {
  switch (issue.format) {
    case "regex":
    case "template_literal":
      return `must match the pattern ${String(issue.pattern)}`;
    case "starts_with":
      return `must start with ${JSON.stringify(issue.prefix)}`;
    case "ends_with":
      return `must end with ${JSON.stringify(issue.suffix)}`;
    case "includes":
      return `must contain ${JSON.stringify(issue.includes)}`;
    case "datetime": {
      const { offset, local } = definitionOf(issue);
      const forms = ["2026-11-22T08:00:00Z"];
      if (offset === true) forms.push("2026-11-22T09:00:00+01:00");
      if (local === true) forms.push("2026-11-22T08:00:00");
      return `must be a date and time in ISO 8601 form, such as ${oneOf(forms)}`;
    }
    default: {
      const format = issue.format ?? "";
      return `must be ${FORMATS[format] ?? `in the ${format} format`}`;
    }
  }
}

/** A nested issue (of a union's option, a record's key) with its own path, for a message. */
function nested(issue: IssueLike): string {
  const path = (issue.path ?? []).map(String).join(".");
  const message = issue.message ?? issueMessage(issue);
  return path === "" ? message : `'${path}' ${message}`;
}

function invalidUnion(issue: IssueLike): string {
  if (issue.inclusive === false)
    return "must match exactly one of its allowed forms, but it matches more than one";
  if (issue.options !== undefined && issue.options.length > 0) {
    return `must be ${choice(issue.options)}`;
  }
  const options = issue.errors ?? [];
  // The value is of no kind any option takes: say which kinds they take.
  const kinds = options.map((issues) =>
    issues.length === 1 && issues[0]?.code === "invalid_type" && (issues[0].path ?? []).length === 0
      ? issues[0].expected
      : undefined,
  );
  if (options.length > 0 && kinds.every((kind) => kind !== undefined)) {
    const names = [...new Set(kinds.map((kind) => A_KIND[kind as string] ?? `a ${kind}`))];
    // A union nested in another's option has lost its input (zod drops it once an issue is final).
    const kind = kindOf(issue.input);
    return kind === "absent" ? `must be ${oneOf(names)}` : `must be ${oneOf(names)}, but it is ${kind}`;
  }
  // Else what each option of the right kind found wrong.
  const near = options.filter((_, index) => kinds[index] === undefined);
  const reasons = near.map((issues) => issues.slice(0, 2).map(nested).join(", and "));
  if (reasons.length === 1) return `does not match its allowed form: ${reasons[0]}`;
  return `matches none of its allowed forms: ${reasons.map((reason, index) => `(${index + 1}) ${reason}`).join("; ")}`;
}

function unrecognizedKeys(issue: IssueLike): string {
  const keys = issue.keys ?? [];
  const shown = keys.slice(0, 5).map(memberName);
  const more = keys.length > shown.length ? ` and ${keys.length - shown.length} more` : "";
  return keys.length === 1
    ? `has a member that is not known: ${shown[0]}`
    : `has members that are not known: ${shown.join(", ")}${more}`;
}

function firstNested(issue: IssueLike): string {
  const first = issue.issues?.[0];
  return first === undefined ? "is not valid" : (first.message ?? issueMessage(first));
}

/**
 * The rule an issue's value breaks, as the rest of a sentence whose subject is the value:
 * `must be a string, but it is a number`. zod's `customError` (src/common/zod.ts).
 */
export function issueMessage(issue: IssueLike): string {
  switch (issue.code) {
    case "invalid_type":
      return invalidType(issue);
    case "invalid_value":
      return invalidValue(issue);
    case "too_big":
      return sizeRule(issue, true);
    case "too_small":
      return sizeRule(issue, false);
    case "invalid_format":
      return invalidFormat(issue);
    case "not_multiple_of":
      return Number(issue.divisor) === 1
        ? "must be a whole number"
        : `must be a multiple of ${String(issue.divisor)}`;
    case "unrecognized_keys":
      return unrecognizedKeys(issue);
    case "invalid_union":
      return invalidUnion(issue);
    case "invalid_key":
      return `has a ${issue.origin === "map" ? "key" : "member name"} that breaks its rule: the name ${firstNested(issue)}`;
    case "invalid_element":
      return `has ${issue.origin === "set" ? "an item" : "a value"} that breaks its rule: it ${firstNested(issue)}`;
    default:
      return "is not valid";
  }
}
