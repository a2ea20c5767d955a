import fc from "fast-check";
import { InvalidRequestContent } from "../../src/common/errors";
import { compileFilter, FILTER_MAX_DEPTH, parseFilter } from "../../src/event-routes/filter";
import type { CloudEvent } from "../../src/events/cloud-event";
import {
  event,
  type Operand,
  type Operator,
  printed,
  type Scalar,
  type Tree,
} from "../support/filter-arbitraries";

/**
 * The filter evaluator against a reference written here, apart from the module: filters are
 * generated as trees of the grammar, printed to text (keyword case, quote style, escapes,
 * whitespace and redundant parentheses chosen at random; test/support/filter-arbitraries.ts), and
 * compiled by the module; the reference evaluates the tree itself. Events carry random attributes
 * and random JSON data drawn from the same small pools as the literals, so that comparisons often
 * hold.
 */
const RUNS = 2000;

// ---- the reference --------------------------------------------------------------------------

const MISSING = Symbol("missing");

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function resolve(operand: Operand, on: CloudEvent): unknown {
  const record = on as Record<string, unknown>;
  if ("attribute" in operand) {
    return Object.hasOwn(record, operand.attribute) ? record[operand.attribute] : MISSING;
  }
  if (!("data" in record)) return MISSING;
  let value: unknown = record.data;
  for (const step of operand.path) {
    const isIndex = typeof step === "number";
    if (isIndex ? typeName(value) !== "array" : typeName(value) !== "object") return MISSING;
    const container = value as Record<string, unknown>;
    if (isIndex ? step >= (value as unknown[]).length : !Object.hasOwn(container, step)) {
      return MISSING;
    }
    value = container[step];
  }
  return value;
}

function compare(value: unknown, operator: Operator, literal: Scalar): boolean {
  if (value === MISSING || typeName(value) !== typeName(literal)) return false;
  if (operator === "=") return value === literal;
  if (operator === "!=") return value !== literal;
  if (typeof literal !== "string" && typeof literal !== "number") return false;
  const [left, right] = [value as string, literal as string];
  return { "<": left < right, "<=": left <= right, ">": left > right, ">=": left >= right }[operator];
}

function evaluate(node: Tree, on: CloudEvent): boolean {
  switch (node.op) {
    case "const":
      return node.value;
    case "not":
      return !evaluate(node.tree, on);
    case "and":
      return node.trees.every((inner) => evaluate(inner, on));
    case "or":
      return node.trees.some((inner) => evaluate(inner, on));
    case "compare":
      return compare(resolve(node.operand, on), node.operator, node.literal);
    default: {
      const value = resolve(node.operand, on);
      if (typeof value !== "string") return false;
      if (node.op === "STARTS_WITH") return value.slice(0, node.argument.length) === node.argument;
      if (node.op === "ENDS_WITH")
        return (
          value.length >= node.argument.length &&
          value.slice(value.length - node.argument.length) === node.argument
        );
      return value.indexOf(node.argument) >= 0;
    }
  }
}

// ---- the properties -------------------------------------------------------------------------

describe("event-route filters against a reference", () => {
  it("parses every printed tree, within the nesting bound", () => {
    fc.assert(
      fc.property(printed, ({ text }) => {
        expect(() => parseFilter(text)).not.toThrow();
      }),
      { numRuns: RUNS },
    );
  });

  it("matches the events the reference matches", () => {
    fc.assert(
      fc.property(printed, fc.array(event, { minLength: 1, maxLength: 10 }), ({ node, text }, events) => {
        const predicate = compileFilter(text);
        for (const on of events)
          expect({ text, on, verdict: predicate(on) }).toEqual({ text, on, verdict: evaluate(node, on) });
      }),
      { numRuns: RUNS },
    );
  });

  it("finds matches often enough to mean something", () => {
    const samples = fc.sample(fc.tuple(printed, event), { numRuns: 2000, seed: 42 });
    const matched = samples.filter(([{ text }, on]) => compileFilter(text)(on)).length;
    expect(matched).toBeGreaterThan(300);
    expect(matched).toBeLessThan(1700);
  });
});

describe("event-route filters on arbitrary text", () => {
  const fragments = fc.constantFrom(
    "(",
    ")",
    "NOT",
    "not",
    "AND",
    "OR",
    "true",
    "FALSE",
    "null",
    "$body",
    ".",
    "[",
    "]",
    "'",
    '"',
    "\\",
    "\\u",
    "=",
    "!=",
    "<",
    ">=",
    "-",
    "1",
    "0",
    "1e",
    ".5",
    ",",
    "STARTS_WITH",
    "contains",
    "type",
    "subject",
    "Type",
    "a",
    "😀",
    "\uD83D",
    "\u00a0",
    " ",
    "\n",
    "'x'",
    '"y"',
    "[0]",
    "['k']",
    "#",
    "&&",
  );
  const texts = fc.oneof(
    fc.string({ maxLength: 60, unit: "binary" }),
    fc.array(fc.oneof(fragments, fc.constant(" ")), { maxLength: 40 }).map((parts) => parts.join("")),
    fc
      .tuple(fc.nat({ max: 2 * FILTER_MAX_DEPTH }), fc.constantFrom("(", "NOT ", "NOT ("))
      .map(([n, open]) => `${open.repeat(n)}true`),
  );

  it("refuses only with the 400, naming a position inside the text and quoting little of it", () => {
    fc.assert(
      fc.property(texts, (text) => {
        try {
          const predicate = compileFilter(text);
          expect(typeof predicate({ id: "1", source: "s", specversion: "1.0", type: "t", data: {} })).toBe(
            "boolean",
          );
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidRequestContent);
          const message = (error as InvalidRequestContent).message;
          const match =
            /^The filter is not valid at position (\d+) \(line \d+, column \d+\): expected .+, found .+\.$/s.exec(
              message,
            );
          expect(match).not.toBeNull();
          expect(Number(match?.[1])).toBeLessThanOrEqual(Array.from(text).length + 1);
          expect(message.length).toBeLessThan(400);
        }
      }),
      { numRuns: RUNS },
    );
  });
});
