import fc from "fast-check";
import { z } from "zod";
import { assessmentPutSchema } from "../../src/assessments/assessment-schema";
import { routeDefinitions } from "../../src/triggers/routes";
import { regexArbitrary, stripLookarounds, zodArbitrary } from "./zod-arbitrary";

const routes = routeDefinitions();

// The generator the fuzzing stands on: what it derives from a schema, the schema must (mostly) accept.
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);

function acceptedShare(schema: z.ZodType, options = {}): number {
  const values = fc.sample(zodArbitrary(schema, options), { seed: SEED, numRuns: 300 });
  return values.filter((value) => schema.safeParse(value).success).length / values.length;
}

describe("zodArbitrary", () => {
  it.each(
    routes.flatMap((route) =>
      route.doc.pathParameters ? [[route.name, route.doc.pathParameters] as const] : [],
    ),
  )("makes path parameters that %s accepts", (_name, schema) => {
    // Refinements the walk cannot see (a resource group must not end in '.') cost a few.
    expect(acceptedShare(schema)).toBeGreaterThan(0.8);
  });

  it("makes assessment bodies, events and batches their schemas accept", () => {
    const ingest = routes.find((route) => route.name === "twinEvents-ingest")?.doc.requestBody?.schema;
    expect(ingest).toBeDefined();
    expect(acceptedShare(ingest as z.ZodType)).toBeGreaterThan(0.95);
    expect(acceptedShare(assessmentPutSchema)).toBeGreaterThan(0.95);
  });

  it("honours the kinds it walks", () => {
    const schema = z.strictObject({
      text: z.string().min(2).max(5),
      pattern: z.string().regex(/^[a-c]{3}-\d$/),
      count: z.number().int().min(-3).max(3),
      ratio: z.number().gt(0).lt(1),
      flag: z.boolean(),
      kind: z.enum(["a", "b"]),
      literal: z.literal("x"),
      list: z.array(z.string()).min(1).max(2),
      either: z.union([z.string(), z.number()]),
      maybe: z.string().nullable().optional(),
      record: z.record(z.string(), z.number()),
      when: z.iso.datetime({ offset: true }),
      url: z.url(),
      bytes: z.base64(),
      anything: z.unknown(),
    });
    expect(acceptedShare(schema)).toBe(1);
  });

  it("uses overrides for fields it cannot see into, and leaves out what they omit", () => {
    const schema = z.strictObject({
      secret: z.string().refine((text) => text.startsWith("S")),
      id: z.string(),
    });
    const values = fc.sample(zodArbitrary(schema, { overrides: { secret: fc.constant("S1") } }), 50);
    expect(values.every((value) => schema.safeParse(value).success)).toBe(true);
  });

  it("generates from patterns with lookarounds by filtering on the real pattern", () => {
    const pattern = /^(?![0-9]+$)(?!-)[a-zA-Z0-9-]{2,49}[a-zA-Z0-9]$/;
    expect(stripLookarounds(pattern.source)).toBe("^[a-zA-Z0-9-]{2,49}[a-zA-Z0-9]$");
    expect(fc.sample(regexArbitrary(pattern), 100).every((text) => pattern.test(text))).toBe(true);
  });
});
