import fc from "fast-check";
import { assessmentPutSchema } from "../../src/assessments/assessment-schema";
import { describeError } from "../../src/common/describe-error";
import { z } from "../../src/common/zod";
import { endpointPatchSchema, endpointPutSchema } from "../../src/endpoints/endpoint-schema";
import { cloudEventSchema } from "../../src/events/cloud-event";
import { twinEventsMessageSchema } from "../../src/events/queue-message";
import { redeliverRequestSchema } from "../../src/http/routes/endpoint-actions";
import { parseOrThrow } from "../../src/http/validation";
import { profilePatchSchema, profilePutSchema } from "../../src/profiles/profile-schema";
import { roleAssignmentPutSchema } from "../../src/role-assignments/role-assignment-schema";
import { thrown } from "../support/thrown";

/**
 * zod's own English (its locale), any of it: none may reach a message. ("expected" alone is the
 * product's too: a JSON syntax error says what it expected.)
 */
const ZOD_WORDING =
  /Invalid (?:input|option|string|number|key|value|discriminator|ISO|base64|URL|email|UUID|GUID)|Too (?:big|small)|Unrecognized key|: expected |, received |[<>]=?\d/;

function messagesOf(schema: z.ZodType, input: unknown): string[] {
  const result = schema.safeParse(input);
  if (result.success) throw new Error("expected the input to be refused");
  return result.error.issues.map((issue) => issue.message);
}

function messageOf(schema: z.ZodType, input: unknown): string {
  const messages = messagesOf(schema, input);
  expect(messages).toHaveLength(1);
  return messages[0] as string;
}

describe("zod's issues in plain words (src/common/zod-messages.ts)", () => {
  it.each<[string, z.ZodType, unknown, string]>([
    // invalid_type
    ["a missing field", z.object({ a: z.string() }), {}, "is required"],
    ["a number for a string", z.string(), 7, "must be a string, but it is a number"],
    ["null for an object", z.object({}), null, "must be an object, but it is null"],
    ["an array for an object", z.object({}), [], "must be an object, but it is an array"],
    ["a string for a boolean", z.boolean(), "yes", "must be true or false, but it is a string"],
    ["true for a number", z.number(), true, "must be a number, but it is true"],
    ["a fraction for a whole number", z.number().int(), 1.5, "must be a whole number, but it has a fraction"],
    ["Infinity for a number", z.number(), Number.POSITIVE_INFINITY, "must be a finite number"],
    ["a key that must not be given", z.object({ a: z.never().optional() }), { a: 1 }, "must not be given"],
    // invalid_value
    ["a literal", z.literal("1.0"), "0.3", 'must be "1.0"'],
    ["a two-value enum", z.enum(["x", "y"]), "z", 'must be "x" or "y"'],
    [
      "an enum",
      z.enum(["User", "ServicePrincipal", "Group"]),
      "Robot",
      'must be one of "User", "ServicePrincipal" or "Group"',
    ],
    ["a numeric literal", z.literal(3), 4, "must be 3"],
    // too_small / too_big
    ["an empty string", z.string().min(1), "", "must not be empty"],
    ["a short string", z.string().min(3), "ab", "must be at least 3 characters long"],
    ["a long string", z.string().max(64), "x".repeat(65), "must be at most 64 characters long"],
    ["a string of the wrong length", z.string().length(36), "x", "must be exactly 36 characters long"],
    ["one character", z.string().max(1), "xy", "must be at most 1 character long"],
    ["an empty array", z.array(z.string()).min(1), [], "must have at least 1 item"],
    ["a long array", z.array(z.string()).max(2), ["a", "b", "c"], "must have at most 2 items"],
    ["a negative count", z.number().int().nonnegative(), -1, "must not be negative"],
    ["zero for a positive", z.number().positive(), 0, "must be greater than 0"],
    ["a number over its maximum", z.number().max(3), 5, "must be at most 3"],
    ["a number at an exclusive bound", z.number().lt(4), 4, "must be less than 4"],
    ["a number under its minimum", z.number().min(1), 0, "must be at least 1"],
    [
      "a whole number a double cannot hold",
      z.number().int(),
      2 ** 60,
      "must be at most 9007199254740991 (a whole number a double holds exactly)",
    ],
    [
      "an early date",
      z.date().min(new Date("2026-01-01T00:00:00Z")),
      new Date(0),
      "must be on or after 2026-01-01T00:00:00.000Z",
    ],
    // invalid_format
    ["a pattern", z.string().regex(/^a+$/), "b", "must match the pattern /^a+$/"],
    [
      "a date-time with an offset",
      z.iso.datetime({ offset: true }),
      "yesterday",
      "must be a date and time in ISO 8601 form, such as 2026-11-22T08:00:00Z or 2026-11-22T09:00:00+01:00",
    ],
    [
      "a date-time in UTC",
      z.iso.datetime(),
      "2026-11-22T09:00:00+01:00",
      "must be a date and time in ISO 8601 form, such as 2026-11-22T08:00:00Z",
    ],
    [
      "base64",
      z.base64(),
      "!!",
      "must be base64 (A-Z, a-z, 0-9, '+' and '/', padded with '=' to a multiple of 4 characters)",
    ],
    ["a URL", z.url(), "nope", "must be an absolute URL"],
    ["a UUID", z.uuid(), "x", "must be a UUID (32 hexadecimal digits as 8-4-4-4-12)"],
    ["an email address", z.email(), "x", "must be an email address"],
    ["a prefix", z.string().startsWith("sb://"), "http://x", 'must start with "sb://"'],
    ["a suffix", z.string().endsWith(".net"), "x.com", 'must end with ".net"'],
    ["lower case", z.string().lowercase(), "ABC", "must be in lower case"],
    // not_multiple_of
    ["a multiple", z.number().multipleOf(5), 7, "must be a multiple of 5"],
    // unrecognized_keys
    [
      "an unknown member",
      z.strictObject({ a: z.string() }),
      { a: "x", b: 1 },
      "has a member that is not known: 'b'",
    ],
    ["unknown members", z.strictObject({}), { b: 1, c: 2 }, "has members that are not known: 'b', 'c'"],
    // invalid_union
    [
      "a value of neither kind",
      z.union([z.string(), z.number()]),
      {},
      "must be a string or a number, but it is an object",
    ],
    [
      "a value of the one right kind, breaking its rule: that option's own words",
      z.union([z.string(), z.array(z.string()).min(1)]),
      [],
      "must have at least 1 item",
    ],
    [
      "a value of two right kinds, breaking the rules of both",
      z.union([z.object({ a: z.string() }), z.object({ b: z.number() })]),
      { a: 1 },
      "matches none of its allowed forms: (1) 'a' must be a string, but it is a number; (2) 'b' is required",
    ],
    [
      "a discriminator",
      z.discriminatedUnion("kind", [z.object({ kind: z.literal("a") }), z.object({ kind: z.literal("b") })]),
      { kind: "c" },
      'must be "a" or "b"',
    ],
    [
      "two matches where one is allowed",
      z.xor([z.string(), z.string().min(1)]),
      "x",
      "must match exactly one of its allowed forms, but it matches more than one",
    ],
    // invalid_key, invalid_element
    [
      "a record's member name",
      z.record(z.string().regex(/^a/), z.number()),
      { b: 1 },
      "has a member name that breaks its rule: the name must match the pattern /^a/",
    ],
    [
      "a set's item (zod gives the item's own issue)",
      z.set(z.string()),
      new Set([1]),
      "must be a string, but it is a number",
    ],
    // custom, without a message of its own
    ["a refinement", z.string().refine(() => false), "x", "is not valid"],
  ])("%s", (_label, schema, input, message) => {
    expect(messageOf(schema, input)).toBe(message);
  });

  it("leaves a schema's own message as it is", () => {
    expect(messageOf(z.string().regex(/^a$/, "must be the letter a"), "b")).toBe("must be the letter a");
  });

  it("never quotes the value, only its kind", () => {
    const secret = "SharedAccessKey=hunter2";
    for (const schema of [
      z.number(),
      z.literal("x"),
      z.string().max(3),
      z.email(),
      z.uuid(),
      z.enum(["a", "b"]),
    ]) {
      expect(messageOf(schema, secret)).not.toContain("hunter2");
    }
  });

  it("states the rule for a setting as config.ts reports it: the name, then the rule", () => {
    const result = z.object({ AUTH_MODE: z.enum(["entra", "keys"]) }).safeParse({ AUTH_MODE: "other" });
    const issue = result.error?.issues[0];
    expect(`${String(issue?.path[0])} ${issue?.message}`).toBe('AUTH_MODE must be "entra" or "keys"');
  });

  it("words a zod error in a log line as its issues, one `path: rule` each", () => {
    const error = thrown(() => twinEventsMessageSchema.parse({ twinsInstanceId: "", events: [] }));
    expect(describeError(error)).toBe(
      "ZodError: twinsInstanceId: must not be empty; events: must have at least 1 item",
    );
  });
});

/** The product's schemas a caller's body or a queue message meets, over any value at all. */
const SCHEMAS: [string, z.ZodType][] = [
  ["profile PUT", profilePutSchema],
  ["profile PATCH", profilePatchSchema],
  ["endpoint PUT", endpointPutSchema],
  ["endpoint PATCH", endpointPatchSchema],
  ["assessment PUT", assessmentPutSchema],
  ["role assignment PUT", roleAssignmentPutSchema],
  ["cloud event", cloudEventSchema],
  ["redeliver", redeliverRequestSchema],
  ["queue message", twinEventsMessageSchema],
];

/** Values near what the schemas take (their own field names), and anything JSON can carry. */
const FIELD_NAMES = [
  ...new Set(
    SCHEMAS.flatMap(([, schema]) =>
      schema instanceof z.ZodObject ? Object.keys((schema as z.ZodObject).shape) : [],
    ),
  ),
];
const nearBody = fc.dictionary(
  fc.oneof(fc.constantFrom(...FIELD_NAMES, "specversion", "settings", "details"), fc.string()),
  fc.oneof(fc.jsonValue(), fc.constantFrom("", "1.0", "x".repeat(300), -1, 1.5, [], {})),
);

/**
 * The text without a field name where the message names it (quoted, or in the list of invalid
 * fields), never inside a word: a field named `un` must not turn "unexpected" into "expected".
 */
function withoutName(text: string, name: string): string {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return text.replace(new RegExp(`(?<=^|['\\s,:])${escaped}(?=$|['.,\\s(])`, "gu"), "");
}

describe("no zod wording reaches a 400 (property)", () => {
  it.each(SCHEMAS)("%s: every detail names its field and says its rule in plain words", (_name, schema) => {
    fc.assert(
      fc.property(fc.oneof(nearBody, fc.jsonValue()), (body) => {
        const result = schema.safeParse(body);
        if (result.success) return;
        const error = thrown(() => parseOrThrow(schema, body)) as {
          message: string;
          details: { message: string; target?: string }[];
        };
        // Field names come from the body, so they can hold anything: the words around them count.
        const names = error.details
          .map((detail) => detail.target ?? "")
          .filter((name) => name !== "")
          .sort((a, b) => b.length - a.length);
        for (const text of [error.message, ...error.details.map((detail) => detail.message)]) {
          expect(names.reduce(withoutName, text)).not.toMatch(ZOD_WORDING);
          expect(text).toMatch(/^(?:The (?:field|property) '.*'|The request body|The request has) /s);
        }
      }),
      // A counterexample once found: a field named inside a word of another's message.
      { numRuns: 300, examples: [[{ un: "", authenticationProfileContent: "" }]] },
    );
  });
});
