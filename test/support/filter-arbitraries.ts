import fc from "fast-check";
import type { CloudEvent } from "../../src/events/cloud-event";

/**
 * Event-route filters as trees of the grammar and random events, for the filter's property tests
 * (test/unit/event-route-filter.property.test.ts, which checks the evaluator against a reference,
 * and test/integration/event-route-filter-test.test.ts). Events carry random attributes and random
 * JSON data drawn from the same small pools as the literals, so that comparisons often hold.
 */

// ---- the trees ------------------------------------------------------------------------------

export type Scalar = string | number | boolean | null;
export type Operator = "=" | "!=" | "<" | "<=" | ">" | ">=";
export type Operand = { attribute: string } | { path: (string | number)[] };
export type Tree =
  | { op: "const"; value: boolean }
  | { op: "not"; tree: Tree }
  | { op: "and" | "or"; trees: Tree[] }
  | { op: "compare"; operand: Operand; operator: Operator; literal: Scalar; literalFirst: boolean }
  | { op: "STARTS_WITH" | "ENDS_WITH" | "CONTAINS"; operand: Operand; argument: string };

export const ATTRIBUTES = [
  "id",
  "type",
  "source",
  "subject",
  "time",
  "dataschema",
  "datacontenttype",
  "specversion",
];
const KEYS = [
  "a",
  "b",
  "name",
  "$dtId",
  "__proto__",
  "constructor",
  "toString",
  "length",
  "0",
  "odd key",
  "é",
  "😀",
];
// Small pools, so that comparisons and functions often hold; the odd ones (quotes, escapes,
// astral characters, prototype names) mixed in.
const STRINGS = ["", "a", "ab", "ba", "b", "aba", "é", "😀", "'", '"', "\\", "a\nb", "0", "true"];
const NUMBERS = [0, 1, -1, 2.5, 3, 1e21, -0.5, 100];

export const stringValue = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...STRINGS) },
  { weight: 1, arbitrary: fc.string({ maxLength: 4, unit: "grapheme" }) },
);
const scalar: fc.Arbitrary<Scalar> = fc.oneof(
  stringValue,
  fc.constantFrom(...NUMBERS),
  fc.boolean(),
  fc.constant(null),
);
// Mostly a few keys and small indexes, so that paths often resolve.
const key = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("a", "0", "1", "length") },
  { weight: 3, arbitrary: fc.constantFrom(...KEYS) },
  { weight: 1, arbitrary: fc.string({ maxLength: 3 }) },
);

const { json } = fc.letrec<{ json: unknown }>((tie) => ({
  json: fc.oneof(
    { depthSize: "small", maxDepth: 4 },
    scalar,
    fc.array(tie("json"), { maxLength: 3 }),
    fc.array(fc.tuple(key, tie("json")), { maxLength: 4 }).map((entries) => Object.fromEntries(entries)),
  ),
}));

const operand: fc.Arbitrary<Operand> = fc.oneof(
  fc.constantFrom(...ATTRIBUTES).map((attribute) => ({ attribute })),
  fc.array(fc.oneof(key, fc.nat({ max: 2 })), { maxLength: 3 }).map((path) => ({ path })),
);

export const { tree } = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: "small", maxDepth: 4 },
    fc.record({
      op: fc.constant("compare" as const),
      operand,
      operator: fc.constantFrom<Operator>("=", "!=", "<", "<=", ">", ">="),
      literal: scalar,
      literalFirst: fc.boolean(),
    }),
    fc.record({
      op: fc.constantFrom("STARTS_WITH" as const, "ENDS_WITH" as const, "CONTAINS" as const),
      operand,
      argument: stringValue,
    }),
    fc.boolean().map((value) => ({ op: "const" as const, value })),
    tie("tree").map((inner) => ({ op: "not" as const, tree: inner })),
    fc.record({
      op: fc.constantFrom("and" as const, "or" as const),
      trees: fc.array(tie("tree"), { minLength: 2, maxLength: 3 }),
    }),
  ),
}));

export const event: fc.Arbitrary<CloudEvent> = fc
  .record({
    attributes: fc.record(Object.fromEntries(ATTRIBUTES.map((name) => [name, stringValue])), {
      requiredKeys: [],
    }),
    data: fc.oneof({ weight: 4, arbitrary: json }, { weight: 1, arbitrary: fc.constant(undefined) }),
  })
  .map(({ attributes, data }) => {
    const event: Record<string, unknown> = { ...attributes };
    if (data === undefined) event.data_base64 = "AA==";
    else event.data = data;
    // As the events arrive: through JSON (so `__proto__` is an own member).
    return JSON.parse(JSON.stringify(event)) as CloudEvent;
  });

// ---- the printer ----------------------------------------------------------------------------

/** Choices for the printer, read in turn from a random list. */
class Choices {
  private next = 0;
  constructor(private readonly values: number[]) {}
  pick<T>(options: readonly T[]): T {
    const value = this.values[this.next++ % this.values.length] as number;
    return options[value % options.length] as T;
  }
}

export const FLIP: Record<Operator, Operator> = {
  "=": "=",
  "!=": "!=",
  "<": ">",
  "<=": ">=",
  ">": "<",
  ">=": "<=",
};

function keyword(word: string, c: Choices): string {
  return c.pick([
    word,
    word.toLowerCase(),
    word,
    [...word].map((ch, i) => (i % 2 ? ch.toLowerCase() : ch)).join(""),
  ]);
}

function space(c: Choices): string {
  return c.pick([" ", " ", "  ", "\t", "\n", "\r\n "]);
}

function maybeSpace(c: Choices): string {
  return c.pick(["", "", " ", "\n"]);
}

function printString(value: string, c: Choices): string {
  const quote = c.pick(["'", '"']);
  let text = quote;
  for (const unit of value.split("")) {
    const code = unit.charCodeAt(0);
    const hex = `\\u${code.toString(16).padStart(4, "0")}`;
    if (unit === quote || unit === "\\") text += c.pick([`\\${unit}`, hex]);
    else if (unit === "\n") text += c.pick(["\\n", hex, "\n"]);
    else if (unit === "\t") text += c.pick(["\\t", hex]);
    else if (unit === "'" || unit === '"') text += c.pick([unit, `\\${unit}`]);
    else text += c.pick([unit, unit, unit, hex]);
  }
  return text + quote;
}

function printLiteral(literal: Scalar, c: Choices): string {
  if (typeof literal === "string") return printString(literal, c);
  if (typeof literal === "number")
    return c.pick([JSON.stringify(literal), String(literal).replace("e+", "E+")]);
  return keyword(String(literal).toUpperCase(), c);
}

function printOperand(target: Operand, c: Choices): string {
  if ("attribute" in target) return target.attribute;
  let text = c.pick(["$body", "$BODY", "$Body"]);
  for (const step of target.path) {
    if (typeof step === "number") text += `[${maybeSpace(c)}${step}${maybeSpace(c)}]`;
    else if (/^[\p{L}_$][\p{L}\p{N}_$]*$/u.test(step) && c.pick([true, false])) text += `.${step}`;
    else text += `[${printString(step, c)}]`;
  }
  return text;
}

/** `node` as text, in parentheses when it would otherwise bind looser than `context` allows. */
function print(node: Tree, c: Choices, context: "or" | "and" | "unary"): string {
  const text = printBare(node, c);
  const loose = (node.op === "or" && context !== "or") || (node.op === "and" && context === "unary");
  return loose || c.pick([false, false, false, false, false, true])
    ? `(${maybeSpace(c)}${text}${maybeSpace(c)})`
    : text;
}

function printBare(node: Tree, c: Choices): string {
  switch (node.op) {
    case "const":
      return keyword(node.value ? "TRUE" : "FALSE", c);
    case "not":
      return `${keyword("NOT", c)}${space(c)}${print(node.tree, c, "unary")}`;
    case "and":
    case "or":
      return node.trees
        .map((inner) => print(inner, c, node.op === "or" ? "and" : "unary"))
        .join(`${space(c)}${keyword(node.op.toUpperCase(), c)}${space(c)}`);
    case "compare": {
      const target = printOperand(node.operand, c);
      const literal = printLiteral(node.literal, c);
      return node.literalFirst
        ? `${literal}${maybeSpace(c)}${FLIP[node.operator]}${maybeSpace(c)}${target}`
        : `${target}${maybeSpace(c)}${node.operator}${maybeSpace(c)}${literal}`;
    }
    default:
      return `${keyword(node.op, c)}${maybeSpace(c)}(${maybeSpace(c)}${printOperand(node.operand, c)},${maybeSpace(c)}${printString(node.argument, c)})`;
  }
}

/** A tree and its text, printed with random keyword case, quotes, escapes, spaces and parentheses. */
export const printed = fc
  .tuple(tree, fc.array(fc.nat({ max: 1000 }), { minLength: 1, maxLength: 64 }))
  .map(([node, values]) => {
    const c = new Choices(values);
    return { node, text: `${maybeSpace(c)}${print(node, c, "or")}${maybeSpace(c)}` };
  });
