import { InvalidFilter } from "../common/errors";

/**
 * The `$filter` of a role-assignment list, as ARM's Microsoft.Authorization takes it
 * (Role Assignments - List For Scope; "List Azure role assignments using the REST API"):
 *
 * - `atScope()`: the assignments at the scope and above it, none below;
 * - `principalId eq '{objectId}'`: the principal's assignments at, above and below the scope;
 * - `assignedTo('{objectId}')`: the same here (ARM adds the assignments of the groups the principal
 *   is in; this service reads no group membership, and an assignment to a group grants nothing here,
 *   so the principal's own assignments are all that apply to it);
 * - `atScope() and assignedTo('{objectId}')` (either order): the principal's, at and above.
 *
 * ARM refuses `atScope()` with `principalId eq`, and so does this. Anything else (another field or
 * function, `or`, `not`, parentheses, an unquoted or malformed id) is refused: a filter that
 * was not applied would answer with other principals' assignments.
 */
export interface AssignmentFilter {
  /** Only this principal's assignments (its object id, lower-cased); absent: everyone's. */
  principalId?: string;
  /** The assignments below the scope too, not only those at and above it. */
  below: boolean;
}

/** No `$filter` (and `atScope()`, which lists the same): at and above the scope, anyone's. */
export const NO_FILTER: AssignmentFilter = Object.freeze({ below: false });

/** The longest `$filter` read; the longest form is 47 characters, the rest is room for blanks. */
export const MAX_FILTER_LENGTH = 256;

const SUPPORTED =
  "Supported filters are atScope(), principalId eq '{objectId}', assignedTo('{objectId}') and atScope() and assignedTo('{objectId}').";

const GUID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;

/** Blanks between words, as OData's RWS and BWS are once the query is decoded: spaces and tabs. */
const isBlank = (char: string | undefined) => char === " " || char === "\t";
const isLetter = (char: string | undefined) => char !== undefined && /^[A-Za-z]$/.test(char);

/** Lower-cases A-Z only: keywords are read in any ASCII letter case, and nothing else folds into them. */
function asciiLower(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => String.fromCharCode(letter.charCodeAt(0) + 32));
}

type Term = { kind: "atScope" } | { kind: "principalId" | "assignedTo"; principalId: string };

function refuse(problem: string): InvalidFilter {
  return new InvalidFilter(`The $filter is not supported: ${problem}. ${SUPPORTED}`, "$filter");
}

/** A name from the filter, for a message: letters only (what the scanner read as a word), bounded. */
function quoted(word: string): string {
  return `'${word.length > 32 ? `${word.slice(0, 32)}…` : word}'`;
}

/** What stands at a position, for a message: never the text itself past a word. */
function describeAt(text: string, position: number): string {
  const char = text[position];
  if (char === undefined) return "the end";
  if (isBlank(char)) return "a blank";
  if (isLetter(char)) return `the word ${quoted(wordAt(text, position))}`;
  if (/^[\x21-\x7e]$/.test(char)) return `'${char}'`;
  return `the character U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
}

function wordAt(text: string, position: number): string {
  let end = position;
  while (isLetter(text[end])) end++;
  return text.slice(position, end);
}

/** A recursive-descent reading of one filter: positions in messages count characters from 1. */
class Reader {
  position = 0;

  constructor(private readonly text: string) {}

  get done(): boolean {
    return this.position >= this.text.length;
  }

  blanks(): number {
    const start = this.position;
    while (isBlank(this.text[this.position])) this.position++;
    return this.position - start;
  }

  fail(expected: string): never {
    throw refuse(
      `expected ${expected} at position ${this.position + 1}, found ${describeAt(this.text, this.position)}`,
    );
  }

  expect(char: string, what = `'${char}'`): void {
    if (this.text[this.position] !== char) this.fail(what);
    this.position++;
  }

  word(): string {
    const word = wordAt(this.text, this.position);
    this.position += word.length;
    return word;
  }

  /** `'…'`, an OData string literal ('' is a quote inside), holding the principal's object id. */
  principal(): string {
    if (this.text[this.position] !== "'") this.fail("the principal's object id in single quotes ('…')");
    const quote = this.position + 1;
    let value = "";
    let at = this.position + 1;
    for (;;) {
      const char = this.text[at];
      if (char === undefined) {
        this.position = at;
        this.fail("the closing quote of the principal's object id");
      }
      if (char === "'" && this.text[at + 1] === "'") {
        value += "'";
        at += 2;
        continue;
      }
      if (char === "'") break;
      value += char;
      at++;
    }
    if (value === "") throw refuse(`the principal's object id at position ${quote} is empty`);
    if (!GUID.test(value))
      throw refuse(
        `the principal's object id at position ${quote} must be a GUID (32 hexadecimal digits as 8-4-4-4-12)`,
      );
    this.position = at + 1;
    // Object ids compare as GUIDs: in any letter case, as stored (lower-cased).
    return value.toLowerCase();
  }

  term(): Term {
    const start = this.position;
    if (this.text[start] === "(") throw refuse(`parentheses at position ${start + 1} are not supported`);
    if (!isLetter(this.text[start])) this.fail("atScope(), principalId eq or assignedTo(");
    const word = this.word();
    const keyword = asciiLower(word);
    if (keyword === "atscope") {
      this.expect("(", "'(' right after atScope");
      this.blanks();
      this.expect(")", "')': atScope() takes no argument");
      return { kind: "atScope" };
    }
    if (keyword === "assignedto") {
      this.expect("(", "'(' right after assignedTo");
      this.blanks();
      const principalId = this.principal();
      this.blanks();
      this.expect(")", "')' after the principal's object id: assignedTo takes one");
      return { kind: "assignedTo", principalId };
    }
    if (keyword === "principalid") {
      if (this.blanks() === 0) this.fail("a blank after principalId");
      const operator = this.word();
      if (asciiLower(operator) !== "eq") {
        this.position -= operator.length;
        if (operator === "") this.fail("eq");
        throw refuse(`principalId takes eq only, not ${quoted(operator)} (position ${this.position + 1})`);
      }
      if (this.blanks() === 0) this.fail("a blank after eq");
      return { kind: "principalId", principalId: this.principal() };
    }
    if (keyword === "not") throw refuse(`'not' (position ${start + 1}) is not supported`);
    throw refuse(
      this.text[this.position] === "("
        ? `the function ${quoted(word)} (position ${start + 1}) is not supported`
        : `filters on ${quoted(word)} (position ${start + 1}) are not supported`,
    );
  }
}

/** Which pairs of terms ARM takes (`atScope() and assignedTo(…)`), and why it refuses the others. */
function combine(first: Term, second: Term): AssignmentFilter {
  const kinds = new Set([first.kind, second.kind]);
  if (kinds.size === 1) throw refuse(`${first.kind} is given twice`);
  if (kinds.has("principalId") && kinds.has("atScope"))
    throw refuse(
      "atScope() cannot be combined with principalId eq (ARM refuses it too): use atScope() and assignedTo('{objectId}')",
    );
  if (kinds.has("principalId")) throw refuse("principalId eq and assignedTo cannot be combined");
  const assigned = first.kind === "assignedTo" ? first : second;
  return { principalId: (assigned as { principalId: string }).principalId, below: false };
}

function meaning(term: Term): AssignmentFilter {
  return term.kind === "atScope" ? NO_FILTER : { principalId: term.principalId, below: true };
}

/**
 * The filter `text` gives (the `$filter` parameter, decoded), or InvalidFilter naming what is wrong
 * and where. Keywords are read in any ASCII letter case; blanks (spaces, tabs) may stand around
 * parentheses and the id, and must stand around `eq` and `and`.
 */
export function parseAssignmentFilter(text: string): AssignmentFilter {
  if (text.length > MAX_FILTER_LENGTH) throw refuse(`it is longer than ${MAX_FILTER_LENGTH} characters`);
  const reader = new Reader(text);
  reader.blanks();
  if (reader.done) throw refuse("it is empty (leave $filter out to list every assignment)");
  const first = reader.term();
  const gap = reader.blanks();
  if (reader.done) return meaning(first);
  const conjunction = asciiLower(wordAt(text, reader.position));
  if (conjunction === "or") throw refuse(`'or' (position ${reader.position + 1}) is not supported`);
  if (conjunction !== "and" || gap === 0) reader.fail("' and ' or the end of the filter");
  reader.word();
  if (reader.blanks() === 0) reader.fail("a blank after and");
  const second = reader.term();
  reader.blanks();
  if (!reader.done) {
    if (asciiLower(wordAt(text, reader.position)) === "and")
      throw refuse(`a third term (position ${reader.position + 1}) is not supported`);
    reader.fail("the end of the filter");
  }
  return combine(first, second);
}

/** The filter in one spelling, for binding a list's skip tokens to it; undefined for NO_FILTER's meaning. */
export function filterIdentity(filter: AssignmentFilter): string | undefined {
  if (filter.principalId === undefined && !filter.below) return undefined;
  return `${filter.below ? "related" : "atOrAbove"}:${filter.principalId ?? "*"}`;
}

/** `text` as a pattern that matches it in any ASCII letter case. */
function anyCase(text: string): string {
  return [...text]
    .map((char) => (/[A-Za-z]/.test(char) ? `[${char.toUpperCase()}${char.toLowerCase()}]` : char))
    .join("");
}

const BWS = "[ \\t]*";
const RWS = "[ \\t]+";
const ID = "'[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}'";
const AT_SCOPE = `${anyCase("atScope")}\\(${BWS}\\)`;
const ASSIGNED_TO = `${anyCase("assignedTo")}\\(${BWS}${ID}${BWS}\\)`;
const PRINCIPAL_ID = `${anyCase("principalId")}${RWS}${anyCase("eq")}${RWS}${ID}`;
const AND = `${RWS}${anyCase("and")}${RWS}`;

/**
 * What parseAssignmentFilter takes, as an ECMA-262 pattern (with MAX_FILTER_LENGTH as the length),
 * for the API description: a client generated from it sends only filters the server takes.
 */
export const ASSIGNMENT_FILTER_PATTERN = `^${BWS}(?:${AT_SCOPE}|${PRINCIPAL_ID}|${ASSIGNED_TO}|${AT_SCOPE}${AND}${ASSIGNED_TO}|${ASSIGNED_TO}${AND}${AT_SCOPE})${BWS}$`;
