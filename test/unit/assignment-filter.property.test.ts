import fc from "fast-check";
import { InvalidFilter } from "../../src/common/errors";
import { buildOpenApiDocument } from "../../src/http/openapi";
import {
  type AssignmentFilter,
  filterIdentity,
  parseAssignmentFilter,
} from "../../src/role-assignments/assignment-filter";
import { routeDefinitions } from "../../src/triggers/routes";

/*
 * A reference model of ARM's role-assignment $filter, written apart from the parser: a text is
 * trimmed of blanks, lower-cased (ASCII letters only, as ARM folds no other), and matched whole
 * against the five forms; anything else is refused. Filters are made from the forms with their
 * letter case, blanks and ids varied, then mutated a character at a time: both must decide alike,
 * and so must the pattern the API description gives for $filter.
 */

type Meaning = { principalId?: string; below: boolean } | "refused";

const asciiLower = (text: string) => text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
const ID = "'([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})'";
const FORMS: [RegExp, (id?: string) => Meaning][] = [
  [/^atscope\([ \t]*\)$/, () => ({ below: false })],
  [new RegExp(`^principalid[ \\t]+eq[ \\t]+${ID}$`), (id) => ({ principalId: id, below: true })],
  [new RegExp(`^assignedto\\([ \\t]*${ID}[ \\t]*\\)$`), (id) => ({ principalId: id, below: true })],
  [
    new RegExp(`^atscope\\([ \\t]*\\)[ \\t]+and[ \\t]+assignedto\\([ \\t]*${ID}[ \\t]*\\)$`),
    (id) => ({ principalId: id, below: false }),
  ],
  [
    new RegExp(`^assignedto\\([ \\t]*${ID}[ \\t]*\\)[ \\t]+and[ \\t]+atscope\\([ \\t]*\\)$`),
    (id) => ({ principalId: id, below: false }),
  ],
];

function reference(text: string): Meaning {
  if (text.length > 256) return "refused";
  const plain = asciiLower(text.replace(/^[ \t]+/, "").replace(/[ \t]+$/, ""));
  for (const [form, meaning] of FORMS) {
    const match = form.exec(plain);
    if (match) return meaning(match[1]);
  }
  return "refused";
}

function service(text: string): Meaning {
  try {
    const filter: AssignmentFilter = parseAssignmentFilter(text);
    return filter.principalId === undefined
      ? { below: filter.below }
      : { principalId: filter.principalId, below: filter.below };
  } catch (error) {
    if (!(error instanceof InvalidFilter)) throw error;
    expect(error.target).toBe("$filter");
    expect(error.status).toBe(400);
    return "refused";
  }
}

// The $filter parameter of a role-assignment list, as the API description gives it.
// biome-ignore lint/suspicious/noExplicitAny: the document is arbitrary JSON, walked by path
const document = buildOpenApiDocument(routeDefinitions()) as any;
const LIST = "/subscriptions/{subscriptionId}/providers/Microsoft.Authorization/roleAssignments";
const filterSchema = document.paths[LIST].get.parameters.find(
  (parameter: { name: string }) => parameter.name === "$filter",
).schema;
const documented = (text: string) =>
  [...text].length >= filterSchema.minLength &&
  [...text].length <= filterSchema.maxLength &&
  new RegExp(filterSchema.pattern, "u").test(text);

/** A keyword in any letter case, letter by letter. */
const anyCase = (word: string) =>
  fc
    .array(fc.boolean(), { minLength: word.length, maxLength: word.length })
    .map((uppers) =>
      [...word].map((char, i) => (uppers[i] ? char.toUpperCase() : char.toLowerCase())).join(""),
    );
const blank = fc.constantFrom(" ", "\t");
const bws = fc.array(blank, { maxLength: 2 }).map((blanks) => blanks.join(""));
const rws = fc.array(blank, { minLength: 1, maxLength: 2 }).map((blanks) => blanks.join(""));
const guid = fc.uuid().chain((id) => anyCase(id));
const quotedId = guid.map((id) => `'${id}'`);

const atScope = fc.tuple(anyCase("atScope"), bws).map(([name, inner]) => `${name}(${inner})`);
const assignedTo = fc
  .tuple(anyCase("assignedTo"), bws, quotedId, bws)
  .map(([name, before, id, after]) => `${name}(${before}${id}${after})`);
const principalId = fc
  .tuple(anyCase("principalId"), rws, anyCase("eq"), rws, quotedId)
  .map((parts) => parts.join(""));
const and = fc.tuple(rws, anyCase("and"), rws).map((parts) => parts.join(""));
const term = fc.oneof(atScope, assignedTo, principalId);
/** Every form, and pairs of any terms (most of which ARM refuses), padded with blanks. */
const wellFormed = fc
  .tuple(
    bws,
    fc.oneof(
      term,
      fc.tuple(term, and, term).map((parts) => parts.join("")),
      fc.tuple(atScope, and, assignedTo).map((parts) => parts.join("")),
      fc.tuple(assignedTo, and, atScope).map((parts) => parts.join("")),
    ),
    bws,
  )
  .map((parts) => parts.join(""));

/** Characters that break filters, or look like those that make them (Kelvin sign, dotless i, NBSP…). */
const tricky = fc.constantFrom(
  "'",
  '"',
  "(",
  ")",
  " ",
  "\t",
  "\n",
  "\u00a0",
  "\u3000",
  "{",
  "}",
  "-",
  "0",
  "g",
  "a",
  "A",
  "\u212a",
  "\u0131",
  "\u0130",
  "\u017f",
  "\uff41",
  ",",
  "%",
  "+",
);
const words = fc.constantFrom(
  " or ",
  " and ",
  " AND ",
  "not ",
  " ne ",
  " eq ",
  "roleDefinitionId eq ",
  "principalName eq ",
  "startswith(",
  "atScope()",
  "assignedTo(",
  "''",
);

/** A well-formed filter with one or two characters inserted, deleted or replaced, or a word put in. */
const mutated = fc
  .tuple(
    wellFormed,
    fc.array(fc.tuple(fc.nat(), fc.nat(2), fc.oneof(tricky, words)), { minLength: 1, maxLength: 2 }),
  )
  .map(([text, edits]) =>
    edits.reduce((current, [at, kind, piece]) => {
      const position = current.length === 0 ? 0 : at % (current.length + 1);
      if (kind === 0) return current.slice(0, position) + piece + current.slice(position);
      if (kind === 1) return current.slice(0, position) + current.slice(position + 1);
      return current.slice(0, position) + piece + current.slice(position + 1);
    }, text),
  );
const junk = fc.array(fc.oneof(tricky, words), { maxLength: 8 }).map((pieces) => pieces.join(""));
const anyFilter = fc.oneof(
  { weight: 3, arbitrary: wellFormed },
  { weight: 4, arbitrary: mutated },
  { weight: 1, arbitrary: junk },
);

describe("a role-assignment list's $filter", () => {
  it("is read as the reference model reads it, and the API description admits exactly what it takes", () => {
    fc.assert(
      fc.property(anyFilter, (text) => {
        const decided = service(text);
        expect(decided).toEqual(reference(text));
        expect(documented(text)).toBe(decided !== "refused");
      }),
      { numRuns: 5000 },
    );
  });

  it("takes every documented form of every id, and refuses a filter of twice the form's length", () => {
    fc.assert(
      fc.property(wellFormed, (text) => {
        expect(service(text)).toEqual(reference(text));
      }),
      { numRuns: 1000 },
    );
    const long = `principalId eq '${"0".repeat(8)}-0000-0000-0000-${"0".repeat(12)}'${" ".repeat(250)}`;
    expect(service(long)).toBe("refused");
    expect(documented(long)).toBe(false);
  });

  it("compares ids as GUIDs: any letter case is one principal, one skip-token binding", () => {
    fc.assert(
      fc.property(fc.uuid(), fc.boolean(), (id, upper) => {
        const spelled = upper ? id.toUpperCase() : id;
        const one = parseAssignmentFilter(`principalId eq '${spelled}'`);
        const other = parseAssignmentFilter(`ASSIGNEDTO( '${id.toLowerCase()}' )`);
        expect(one).toEqual({ principalId: id.toLowerCase(), below: true });
        expect(filterIdentity(one)).toBe(filterIdentity(other));
        expect(filterIdentity(one)).not.toBe(
          filterIdentity(parseAssignmentFilter(`atScope() and assignedTo('${id}')`)),
        );
      }),
    );
    expect(filterIdentity(parseAssignmentFilter("atScope()"))).toBeUndefined();
  });
});

describe("a refused $filter's message", () => {
  const message = (text: string) => {
    try {
      parseAssignmentFilter(text);
    } catch (error) {
      return (error as InvalidFilter).message;
    }
    throw new Error(`took ${text}`);
  };

  it.each([
    ["", /is empty/],
    ["   ", /is empty/],
    ["principalId eq 6d1f0f8e-2b7a-4c3e-9f10-3a4b5c6d7e8f", /single quotes .* at position 16/],
    ["principalId eq ''", /object id at position 16 is empty/],
    ["principalId eq 'not-a-guid'", /must be a GUID/],
    ["principalId eq '{6d1f0f8e-2b7a-4c3e-9f10-3a4b5c6d7e8f}'", /must be a GUID/],
    ['principalId eq "6d1f0f8e-2b7a-4c3e-9f10-3a4b5c6d7e8f"', /single quotes.*found '"'/],
    ["principalId ne '6d1f0f8e-2b7a-4c3e-9f10-3a4b5c6d7e8f'", /takes eq only, not 'ne'/],
    ["roleDefinitionId eq '6d1f0f8e-2b7a-4c3e-9f10-3a4b5c6d7e8f'", /filters on 'roleDefinitionId'/],
    ["startswith(principalId, '6')", /the function 'startswith'/],
    ["atScope() or assignedTo('6d1f0f8e-2b7a-4c3e-9f10-3a4b5c6d7e8f')", /'or' \(position 11\)/],
    ["not atScope()", /'not'/],
    ["(atScope())", /parentheses/],
    ["atScope", /'\(' right after atScope at position 8, found the end/],
    ["atScope ()", /found a blank/],
    ["atScope(x)", /atScope\(\) takes no argument/],
    ["atScope() and atScope()", /atScope is given twice/],
    ["atScope() and principalId eq '6d1f0f8e-2b7a-4c3e-9f10-3a4b5c6d7e8f'", /ARM refuses it too/],
    [
      "principalId eq '6d1f0f8e-2b7a-4c3e-9f10-3a4b5c6d7e8f' and assignedTo('6d1f0f8e-2b7a-4c3e-9f10-3a4b5c6d7e8f')",
      /cannot be combined/,
    ],
    ["atScope() and assignedTo('6d1f0f8e-2b7a-4c3e-9f10-3a4b5c6d7e8f') and atScope()", /a third term/],
    ["atScope()and assignedTo('6d1f0f8e-2b7a-4c3e-9f10-3a4b5c6d7e8f')", /' and ' or the end/],
    ["\u212atScope()", /found the character U\+212A/],
  ])("for %j says what is wrong", (text, expected) => {
    const said = message(text);
    expect(said).toMatch(expected);
    expect(said).toMatch(/Supported filters are atScope\(\), principalId eq '\{objectId\}'/);
  });

  it("never carries the id it refused", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 40 }), (value) => {
        const said = message(`principalId eq 'x${value.replace(/'/g, "")}'`);
        if (value.replace(/'/g, "").length > 3) expect(said).not.toContain(`x${value.replace(/'/g, "")}`);
      }),
    );
  });
});
