import type { CloudEvent } from "../events/cloud-event";

/**
 * A parsed event-route filter (the tree src/event-routes/filter.ts builds) and its compilation to
 * a predicate: a tree of closures made once, which reads the event and allocates nothing when run.
 *
 * Semantics, as ADT's filters and Cosmos DB's SQL have them:
 * - An operand the event lacks is missing: an attribute it does not have; a `$body` path that does
 *   not resolve (a missing member, an index out of range, a step through a value that is not an
 *   object or array, an event with no `data`, such as one with `data_base64`). Every comparison
 *   and function on a missing operand is false.
 * - A name step (`.name`, `['name']`) reads an own member of a JSON object only (never of an array,
 *   never the prototype: `__proto__` and `constructor` are names like any other); an index step
 *   (`[0]`) reads an array only.
 * - Comparing values of different JSON types is false for every operator, `!=` included, so
 *   `NOT (a = b)` differs from `a != b` when the types differ or `a` is missing; `x != null` is
 *   never true. Objects and arrays compare false to every literal.
 * - `=` and `!=` compare strings, numbers, booleans and null by value (case-sensitively); `<`,
 *   `<=`, `>`, `>=` order numbers numerically and strings by UTF-16 code units, and are false on
 *   booleans and null.
 * - STARTS_WITH, ENDS_WITH and CONTAINS are false unless the operand is a string.
 */

export const CLOUD_EVENT_ATTRIBUTES = [
  "id",
  "type",
  "source",
  "subject",
  "time",
  "dataschema",
  "datacontenttype",
  "specversion",
] as const;

export type CloudEventAttribute = (typeof CLOUD_EVENT_ATTRIBUTES)[number];
export type ComparisonOperator = "=" | "!=" | "<" | "<=" | ">" | ">=";
export type FilterFunction = "STARTS_WITH" | "ENDS_WITH" | "CONTAINS";
export type FilterLiteral = string | number | boolean | null;

/** What a comparison or function reads: an attribute, or a path into the event's data. */
export type FilterOperand =
  | { readonly kind: "attribute"; readonly name: CloudEventAttribute }
  /** Strings are member names, numbers array indexes; an empty path is the data itself. */
  | { readonly kind: "body"; readonly path: readonly (string | number)[] };

export type FilterNode =
  | { readonly kind: "constant"; readonly value: boolean }
  | { readonly kind: "not"; readonly operand: FilterNode }
  | { readonly kind: "and" | "or"; readonly operands: readonly FilterNode[] }
  /** `literal op operand` is stored as `operand op' literal` (`5 < $body.x` as `$body.x > 5`). */
  | {
      readonly kind: "comparison";
      readonly operand: FilterOperand;
      readonly operator: ComparisonOperator;
      readonly value: FilterLiteral;
    }
  | {
      readonly kind: "function";
      readonly name: FilterFunction;
      readonly operand: FilterOperand;
      readonly value: string;
    };

export type EventPredicate = (event: CloudEvent) => boolean;

/** Reads an operand; undefined when it is missing (JSON has no undefined). */
type Getter = (event: CloudEvent) => unknown;

const hasOwn = Object.hasOwn as (value: object, key: PropertyKey) => boolean;

function getter(operand: FilterOperand): Getter {
  if (operand.kind === "attribute") {
    const { name } = operand;
    return (event) => (hasOwn(event, name) ? (event as Record<string, unknown>)[name] : undefined);
  }
  const { path } = operand;
  return (event) => {
    if (!hasOwn(event, "data")) return undefined;
    let value: unknown = event.data;
    for (let i = 0; i < path.length; i++) {
      const step = path[i] as string | number;
      if (typeof step === "number") {
        if (!Array.isArray(value) || step >= value.length) return undefined;
        value = value[step];
      } else {
        if (typeof value !== "object" || value === null || Array.isArray(value) || !hasOwn(value, step)) {
          return undefined;
        }
        value = (value as Record<string, unknown>)[step];
      }
    }
    return value;
  };
}

/**
 * The value an operand reads on an event; undefined when it is missing. For explaining a verdict
 * (filter-explain.ts), never for delivery, which compiles the getter once.
 */
export function operandValue(operand: FilterOperand, event: CloudEvent): unknown {
  return getter(operand)(event);
}

const never: EventPredicate = () => false;

function comparison(get: Getter, operator: ComparisonOperator, literal: FilterLiteral): EventPredicate {
  // A missing operand (undefined) and a value of another type fail `typeof value === type`.
  const type = typeof literal;
  if (operator === "=") return (event) => get(event) === literal;
  if (literal === null) return never;
  if (operator === "!=") {
    return (event) => {
      const value = get(event);
      return typeof value === type && value !== literal;
    };
  }
  if (typeof literal === "boolean") return never;
  // Both sides are strings, or both are numbers, where the comparison runs.
  const bound = literal as number;
  switch (operator) {
    case "<":
      return (event) => {
        const value = get(event);
        return typeof value === type && (value as number) < bound;
      };
    case "<=":
      return (event) => {
        const value = get(event);
        return typeof value === type && (value as number) <= bound;
      };
    case ">":
      return (event) => {
        const value = get(event);
        return typeof value === type && (value as number) > bound;
      };
    case ">=":
      return (event) => {
        const value = get(event);
        return typeof value === type && (value as number) >= bound;
      };
  }
}

function stringFunction(get: Getter, name: FilterFunction, argument: string): EventPredicate {
  switch (name) {
    case "STARTS_WITH":
      return (event) => {
        const value = get(event);
        return typeof value === "string" && value.startsWith(argument);
      };
    case "ENDS_WITH":
      return (event) => {
        const value = get(event);
        return typeof value === "string" && value.endsWith(argument);
      };
    case "CONTAINS":
      return (event) => {
        const value = get(event);
        return typeof value === "string" && value.includes(argument);
      };
  }
}

/** The predicate of a parsed filter. Its depth is bounded by the parser (FILTER_MAX_DEPTH). */
export function compileFilterNode(node: FilterNode): EventPredicate {
  switch (node.kind) {
    case "constant":
      return node.value ? () => true : never;
    case "not": {
      const operand = compileFilterNode(node.operand);
      return (event) => !operand(event);
    }
    case "and": {
      const operands = node.operands.map(compileFilterNode);
      return (event) => {
        for (let i = 0; i < operands.length; i++) if (!(operands[i] as EventPredicate)(event)) return false;
        return true;
      };
    }
    case "or": {
      const operands = node.operands.map(compileFilterNode);
      return (event) => {
        for (let i = 0; i < operands.length; i++) if ((operands[i] as EventPredicate)(event)) return true;
        return false;
      };
    }
    case "comparison":
      return comparison(getter(node.operand), node.operator, node.value);
    case "function":
      return stringFunction(getter(node.operand), node.name, node.value);
  }
}
