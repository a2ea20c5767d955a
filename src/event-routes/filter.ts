import { InvalidRequestContent } from "../common/errors";
import { characterCount } from "../common/text-position";
import type { CloudEvent } from "../events/cloud-event";
import {
  CLOUD_EVENT_ATTRIBUTES,
  type CloudEventAttribute,
  type ComparisonOperator,
  compileFilterNode,
  type FilterFunction,
  type FilterLiteral,
  type FilterNode,
  type FilterOperand,
} from "./filter-evaluate";
import { describeToken, excerpt, FilterLexer, filterError, type Token } from "./filter-lexer";

/**
 * Event-route filters, in the language of Azure Digital Twins' event routes:
 * `type = 'Microsoft.DigitalTwins.Twin.Create' AND STARTS_WITH($body.$metadata.$model, 'dtmi:')`.
 *
 * A small recursive-descent parser written here rather than a parser library: the grammar is a
 * dozen rules, the module ships in the deployment package (no new dependency), and a hand-written
 * parser says exactly where a filter goes wrong and what was expected there, which is the 400 the
 * caller sees. Its recursion is bounded by FILTER_MAX_DEPTH, so no filter can overflow the stack.
 *
 *   filter     := or END
 *   or         := and ('OR' and)*
 *   and        := unary ('AND' unary)*
 *   unary      := 'NOT' unary | primary
 *   primary    := '(' or ')' | 'true' | 'false' | function | comparison
 *   function   := ('STARTS_WITH' | 'ENDS_WITH' | 'CONTAINS') '(' operand ',' string ')'
 *   comparison := operand operator literal | literal operator operand
 *   operator   := '=' | '!=' | '<' | '<=' | '>' | '>='
 *   operand    := attribute | '$body' path
 *   attribute  := 'id' | 'type' | 'source' | 'subject' | 'time' | 'dataschema' | 'datacontenttype'
 *               | 'specversion'
 *   path       := ('.' name | '[' (string | integer) ']')*
 *   name       := [\p{L}_$] [\p{L}\p{N}_$]*
 *   literal    := string | number | 'true' | 'false' | 'null'
 *   string     := "'" ... "'" | '"' ... '"'   (escapes \\ \' \" \n \t \uXXXX)
 *   number     := JSON's number, optionally negative
 *
 * Keywords, function names, literals' names and `$body` are case-insensitive; attribute names are
 * CloudEvents' (lowercase) and case-sensitive. `literal operator operand` is the comparison the
 * other way round (`5 < $body.x` is `$body.x > 5`). `true` and `false` alone are conditions.
 * Whitespace is space, tab, CR and LF. Semantics: src/event-routes/filter-evaluate.ts.
 */

export type {
  CloudEventAttribute,
  ComparisonOperator,
  EventPredicate,
  FilterFunction,
  FilterLiteral,
  FilterNode,
  FilterOperand,
} from "./filter-evaluate";
export { CLOUD_EVENT_ATTRIBUTES } from "./filter-evaluate";

/** The longest filter, in characters (code points). */
export const FILTER_MAX_LENGTH = 2048;
/** How deep parentheses and NOTs may nest (AND and OR chains nest only through parentheses). */
export const FILTER_MAX_DEPTH = 32;

const ATTRIBUTES: ReadonlySet<string> = new Set(CLOUD_EVENT_ATTRIBUTES);
const FUNCTIONS: ReadonlySet<string> = new Set(["STARTS_WITH", "ENDS_WITH", "CONTAINS"]);
const LITERALS = new Map<string, FilterLiteral>([
  ["TRUE", true],
  ["FALSE", false],
  ["NULL", null],
]);
const FLIPPED: Record<ComparisonOperator, ComparisonOperator> = {
  "=": "=",
  "!=": "!=",
  "<": ">",
  "<=": ">=",
  ">": "<",
  ">=": "<=",
};

const ATTRIBUTE_LIST = CLOUD_EVENT_ATTRIBUTES.join(", ");
const OPERAND = `a CloudEvents attribute (${ATTRIBUTE_LIST}) or $body`;
const CONDITION =
  `a condition: a CloudEvents attribute (${ATTRIBUTE_LIST}), $body, a literal, ` +
  "STARTS_WITH, ENDS_WITH, CONTAINS, NOT, '(', true or false";
const OPERATORS = "a comparison operator (=, !=, <, <=, >, >=)";
const LITERAL = "a literal (a string, a number, true, false or null)";

class FilterParser {
  private readonly lexer: FilterLexer;
  private token: Token;
  /** Where the previous token ends (UTF-16). */
  private previousEnd = 0;

  constructor(private readonly text: string) {
    this.lexer = new FilterLexer(text);
    this.token = this.lexer.next();
  }

  parse(): FilterNode {
    const node = this.or(0);
    if (this.token.kind !== "end") this.fail("AND, OR or the end of the filter");
    return node;
  }

  private advance(): Token {
    const token = this.token;
    this.previousEnd = token.end;
    this.token = this.lexer.next();
    return token;
  }

  private fail(expected: string, found = describeToken(this.token)): never {
    throw filterError(this.text, this.token.start, expected, found);
  }

  private isKeyword(keyword: string): boolean {
    return this.token.kind === "word" && this.token.raw.toUpperCase() === keyword;
  }

  private isPunctuation(character: string): boolean {
    return this.token.kind === "punctuation" && this.token.raw === character;
  }

  private expectPunctuation(character: string, expected: string): void {
    if (!this.isPunctuation(character)) this.fail(expected);
    this.advance();
  }

  /** Entering a level of parentheses or NOT at `depth` (0 at the top). */
  private nest(depth: number): number {
    if (depth >= FILTER_MAX_DEPTH) {
      this.fail(`at most ${FILTER_MAX_DEPTH} levels of nested parentheses and NOT`);
    }
    return depth + 1;
  }

  private or(depth: number): FilterNode {
    const operands = [this.and(depth)];
    while (this.isKeyword("OR")) {
      this.advance();
      operands.push(this.and(depth));
    }
    return operands.length === 1 ? (operands[0] as FilterNode) : { kind: "or", operands };
  }

  private and(depth: number): FilterNode {
    const operands = [this.unary(depth)];
    while (this.isKeyword("AND")) {
      this.advance();
      operands.push(this.unary(depth));
    }
    return operands.length === 1 ? (operands[0] as FilterNode) : { kind: "and", operands };
  }

  private unary(depth: number): FilterNode {
    if (!this.isKeyword("NOT")) return this.primary(depth);
    const inner = this.nest(depth);
    this.advance();
    return { kind: "not", operand: this.unary(inner) };
  }

  private primary(depth: number): FilterNode {
    const token = this.token;
    if (this.isPunctuation("(")) {
      const inner = this.nest(depth);
      this.advance();
      const node = this.or(inner);
      this.expectPunctuation(")", "AND, OR or ')'");
      return node;
    }
    const word = token.kind === "word" ? token.raw.toUpperCase() : "";
    if (FUNCTIONS.has(word)) return this.stringFunction(word as FilterFunction);
    const literal = this.literal();
    if (literal === undefined) return this.comparison();
    if (typeof literal === "boolean" && this.token.kind !== "operator")
      return { kind: "constant", value: literal };
    // literal operator operand
    const operator = this.operator(token);
    return {
      kind: "comparison",
      operand: this.operand(OPERAND),
      operator: FLIPPED[operator],
      value: literal,
    };
  }

  /** A literal, consumed; undefined (nothing consumed) when the token is not one. */
  private literal(): FilterLiteral | undefined {
    const token = this.token;
    if (token.kind === "string" || token.kind === "number") {
      this.advance();
      return token.value;
    }
    const named = token.kind === "word" ? LITERALS.get(token.raw.toUpperCase()) : undefined;
    if (named !== undefined) this.advance();
    return named;
  }

  /** An operator after the operand or literal that began at `first`. */
  private operator(first: Token): ComparisonOperator {
    if (this.token.kind !== "operator") {
      const written = this.text.slice(first.start, this.previousEnd).replace(/\s+/g, " ");
      this.fail(`${OPERATORS} after '${excerpt(written)}'`);
    }
    return this.advance().raw as ComparisonOperator;
  }

  private comparison(): FilterNode {
    const first = this.token;
    const operand = this.operand(CONDITION);
    const operator = this.operator(first);
    const value = this.literal();
    if (value === undefined) this.fail(`${LITERAL} after '${operator}'`);
    return { kind: "comparison", operand, operator, value };
  }

  private stringFunction(name: FilterFunction): FilterNode {
    this.advance();
    this.expectPunctuation("(", `'(' after ${name}`);
    const operand = this.operand(`${OPERAND} as the first argument of ${name}`);
    this.expectPunctuation(",", `',' after the first argument of ${name}`);
    const value = this.token.value;
    if (this.token.kind !== "string" || typeof value !== "string") {
      this.fail(`a string as the second argument of ${name}`);
    }
    this.advance();
    this.expectPunctuation(")", `')' to close ${name}(`);
    return { kind: "function", name, operand, value };
  }

  private operand(expected: string): FilterOperand {
    const token = this.token;
    if (token.kind === "word" && token.raw.toLowerCase() === "$body") {
      this.advance();
      return { kind: "body", path: this.path() };
    }
    if (token.kind === "word" && ATTRIBUTES.has(token.raw.toLowerCase()) && !ATTRIBUTES.has(token.raw)) {
      this.fail(expected, `'${token.raw}' (attribute names are lowercase)`);
    }
    if (token.kind !== "word" || !ATTRIBUTES.has(token.raw)) this.fail(expected);
    this.advance();
    return { kind: "attribute", name: token.raw as CloudEventAttribute };
  }

  private path(): (string | number)[] {
    const path: (string | number)[] = [];
    for (;;) {
      if (this.isPunctuation(".")) {
        this.advance();
        if (this.token.kind !== "word") this.fail("a member name after '.' (['name'] for other names)");
        path.push(this.advance().raw);
      } else if (this.isPunctuation("[")) {
        this.advance();
        const { kind, raw, value } = this.token;
        const index = kind === "number" && /^[0-9]+$/.test(raw) && Number.isSafeInteger(value);
        if (kind !== "string" && !index) {
          this.fail("a quoted member name or an array index (a non-negative integer) after '['");
        }
        path.push(value as string | number);
        this.advance();
        this.expectPunctuation("]", "']'");
      } else {
        return path;
      }
    }
  }
}

/** The tree of a filter; an InvalidRequestContent (400) naming where and why when it is not one. */
export function parseFilter(text: string): FilterNode {
  const length = text.length > FILTER_MAX_LENGTH ? characterCount(text) : text.length;
  if (length > FILTER_MAX_LENGTH) {
    throw new InvalidRequestContent(
      `The filter is ${length} characters long; at most ${FILTER_MAX_LENGTH} are allowed.`,
      "filter",
    );
  }
  return new FilterParser(text).parse();
}

/** A filter parsed once into a predicate on events (see filter-evaluate.ts for its semantics). */
export function compileFilter(text: string): (event: CloudEvent) => boolean {
  return compileFilterNode(parseFilter(text));
}
