import type { CloudEvent } from "../events/cloud-event";
import {
  compileFilterNode,
  type FilterLiteral,
  type FilterNode,
  type FilterOperand,
  operandValue,
} from "./filter-evaluate";

/**
 * A filter's verdict on one event, and when it is false, why: the comparison (or function, or
 * constant) that decided it, in words. For trying a filter (POST …/testEventRouteFilter), never
 * for delivery: delivery runs the compiled predicate (filter-evaluate.ts), whose cost this leaves
 * alone. Each leaf's truth is the compiled predicate's own (compileFilterNode on the leaf), so the
 * verdict is delivery's; only AND, OR and NOT are walked here, as delivery combines them.
 *
 * Which leaf decides: for AND, its first false operand; for OR, all of them (each is named); for
 * NOT, its operand, which was true.
 */
export type FilterVerdict = { matches: true } | { matches: false; reason: string };

/** At most this many characters of a value from the event are quoted in a reason. */
const VALUE_EXCERPT = 64;

interface Explained {
  value: boolean;
  /** Why the node has that value, e.g. "type = 'A' was false: the event's type is 'B'". */
  why: string;
}

export function explainFilter(node: FilterNode, event: CloudEvent): FilterVerdict {
  const { value, why } = explain(node, event);
  return value ? { matches: true } : { matches: false, reason: why };
}

function explain(node: FilterNode, event: CloudEvent): Explained {
  switch (node.kind) {
    case "constant":
      return { value: node.value, why: `the filter's constant ${node.value} is always ${node.value}` };
    case "not": {
      const inner = explain(node.operand, event);
      return {
        value: !inner.value,
        why: `NOT ${printNested(node.operand)} was ${!inner.value}, since ${inner.why}`,
      };
    }
    case "and": {
      for (const operand of node.operands) {
        const explained = explain(operand, event);
        if (!explained.value) return explained;
      }
      return {
        value: true,
        why: `${printNode(node)} was true: each of its ${node.operands.length} operands was`,
      };
    }
    case "or": {
      const reasons: string[] = [];
      for (const operand of node.operands) {
        const explained = explain(operand, event);
        if (explained.value) return explained;
        reasons.push(explained.why);
      }
      return {
        value: false,
        why: `none of the ${node.operands.length} alternatives of OR was true: ${reasons.map((reason, index) => `(${index + 1}) ${reason}`).join("; ")}`,
      };
    }
    case "comparison":
    case "function": {
      // The leaf's truth as delivery computes it.
      const value = compileFilterNode(node)(event);
      return { value, why: `${printNode(node)} was ${value}: ${leafDetail(node, event, value)}` };
    }
  }
}

/** What the event holds where the leaf reads, and (when it is why) that it is of another type. */
function leafDetail(
  node: Extract<FilterNode, { kind: "comparison" | "function" }>,
  event: CloudEvent,
  value: boolean,
): string {
  const operand = node.operand;
  const read = operandValue(operand, event);
  if (read === undefined) return missing(operand, event);
  const holds = `the event's ${printOperand(operand)} is ${printValue(read)}`;
  if (value) return holds;
  if (node.kind === "function") {
    return typeof read === "string" ? holds : `${holds}, not a string (${node.name} reads strings only)`;
  }
  const literal = node.value;
  if (literal === null && node.operator !== "=") return `${holds}; '${node.operator}' is never true of null`;
  if (typeOf(read) !== typeOf(literal)) {
    return `${holds}, not ${article(typeOf(literal))} (values of different types never compare true)`;
  }
  if (typeof literal === "boolean" && node.operator !== "=" && node.operator !== "!=") {
    return `${holds}; '${node.operator}' does not order booleans`;
  }
  return holds;
}

function missing(operand: FilterOperand, event: CloudEvent): string {
  if (operand.kind === "attribute") return `the event has no ${operand.name}`;
  if (!Object.hasOwn(event, "data")) {
    return Object.hasOwn(event, "data_base64")
      ? "the event has data_base64, not data, so $body reads nothing"
      : "the event has no data";
  }
  return `the event's data has no ${printOperand(operand)}`;
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function article(type: string): string {
  return type === "null" ? "null" : `${/^[aeiou]/.test(type) ? "an" : "a"} ${type}`;
}

function cut(text: string): string {
  const characters = Array.from(text.slice(0, VALUE_EXCERPT * 2 + 2));
  return characters.length <= VALUE_EXCERPT
    ? characters.join("")
    : `${characters.slice(0, VALUE_EXCERPT - 1).join("")}…`;
}

/** A value from the event: as a filter literal when it is one, else its kind. */
function printValue(value: unknown): string {
  switch (typeOf(value)) {
    case "string":
      return cut(printString(value as string));
    case "number":
    case "boolean":
    case "null":
      return JSON.stringify(value);
    case "array":
      return `an array of ${(value as unknown[]).length}`;
    default:
      return "an object";
  }
}

function printString(text: string): string {
  return `'${text.replace(/[\\'\n\t]/g, (ch) => ({ "\\": "\\\\", "'": "\\'", "\n": "\\n", "\t": "\\t" })[ch] as string)}'`;
}

function printLiteral(literal: FilterLiteral): string {
  return typeof literal === "string" ? printString(literal) : String(literal);
}

function printOperand(operand: FilterOperand): string {
  if (operand.kind === "attribute") return operand.name;
  let text = "$body";
  for (const step of operand.path) {
    if (typeof step === "number") text += `[${step}]`;
    else if (/^[\p{L}_$][\p{L}\p{N}_$]*$/u.test(step)) text += `.${step}`;
    else text += `[${printString(step)}]`;
  }
  return text;
}

/** The node as filter text (comparisons as the parser stores them: the operand first). */
function printNode(node: FilterNode): string {
  switch (node.kind) {
    case "constant":
      return String(node.value);
    case "not":
      return `NOT ${printNested(node.operand)}`;
    case "and":
    case "or":
      return node.operands.map(printNested).join(` ${node.kind.toUpperCase()} `);
    case "comparison":
      return `${printOperand(node.operand)} ${node.operator} ${printLiteral(node.value)}`;
    case "function":
      return `${node.name}(${printOperand(node.operand)}, ${printString(node.value)})`;
  }
}

function printNested(node: FilterNode): string {
  return node.kind === "and" || node.kind === "or" ? `(${printNode(node)})` : printNode(node);
}
