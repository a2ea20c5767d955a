import { InvalidRequestContent } from "../../src/common/errors";
import {
  compileFilter,
  FILTER_MAX_DEPTH,
  FILTER_MAX_LENGTH,
  parseFilter,
} from "../../src/event-routes/filter";
import type { CloudEvent } from "../../src/events/cloud-event";

const event: CloudEvent = {
  id: "e-1",
  type: "Microsoft.DigitalTwins.Twin.Create",
  source: "factory.api.weu.digitaltwins.azure.net",
  subject: "pump-7",
  time: "2026-11-25T06:00:00Z",
  dataschema: "dtmi:example:Pump;1",
  datacontenttype: "application/json",
  specversion: "1.0",
  data: {
    name: "Pump 7",
    temperature: 21.5,
    count: 3,
    zero: 0,
    on: true,
    off: false,
    nothing: null,
    tags: ["a", "b", { deep: "x" }],
    nested: { level: { value: "v" } },
    "odd key": "o",
    $dtId: "pump-7",
    $metadata: { $model: "dtmi:example:Pump;1" },
    ["__proto__"]: "own proto",
    constructor: 5,
    "0": "zero-key",
    "😀": "smile",
    "it's": "quoted",
  },
};

/** The event as it arrives, from JSON.parse (which makes `__proto__` an own member). */
const parsedEvent: CloudEvent = JSON.parse(JSON.stringify(event));

function matches(filter: string, on: CloudEvent = parsedEvent): boolean {
  return compileFilter(filter)(on);
}

function errorOf(filter: string): InvalidRequestContent {
  try {
    parseFilter(filter);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidRequestContent);
    return error as InvalidRequestContent;
  }
  throw new Error(`parsed: ${filter}`);
}

describe("event-route filters: what matches", () => {
  it("has an own __proto__ member in the test event's data", () => {
    expect(Object.hasOwn(parsedEvent.data as object, "__proto__")).toBe(true);
  });

  it.each([
    ["id = 'e-1'", true],
    ["type = 'Microsoft.DigitalTwins.Twin.Create'", true],
    ["type = 'microsoft.digitaltwins.twin.create'", false],
    ["source = 'factory.api.weu.digitaltwins.azure.net'", true],
    ["subject = 'pump-7'", true],
    ["time = '2026-11-25T06:00:00Z'", true],
    ["time > '2026-01-01'", true],
    ["dataschema = 'dtmi:example:Pump;1'", true],
    ["datacontenttype = 'application/json'", true],
    ["specversion = '1.0'", true],
    ["specversion = 1.0", false],
  ])("each attribute: %s is %s", (filter, expected) => {
    expect(matches(filter)).toBe(expected);
  });

  it.each([
    ["$body.name = 'Pump 7'", true],
    ['$body.name = "Pump 7"', true],
    ["$body.nested.level.value = 'v'", true],
    ["$body['nested']['level'].value = 'v'", true],
    ["$body['odd key'] = 'o'", true],
    ["$body[\"it's\"] = 'quoted'", true],
    ["$body.$dtId = 'pump-7'", true],
    ["$body.$metadata.$model = 'dtmi:example:Pump;1'", true],
    ["STARTS_WITH($body.$metadata.$model, 'dtmi:example:')", true],
    ["$body.tags[0] = 'a'", true],
    ["$body.tags[1] = 'b'", true],
    ["$body.tags[2].deep = 'x'", true],
    ["$body.tags[3] = 'a'", false],
    ["$body.tags['0'] = 'a'", false],
    ["$body.tags.length = 3", false],
    ["$body['0'] = 'zero-key'", true],
    ["$body[0] = 'zero-key'", false],
    ["$body.café = 1", false],
    ["$body['😀'] = 'smile'", true],
    ["$body.missing = 1", false],
    ["$body.missing != 1", false],
    ["$body.name.first = 'P'", false],
    ["$body.count.x = 1", false],
    ["$body.nothing.x = 1", false],
    ["$body.__proto__ = 'own proto'", true],
    ["$body.constructor = 5", true],
    ["$body.nested.constructor = 5", false],
    ["$body.nested.__proto__ != 'x'", false],
    ["$body.nested.toString != 'x'", false],
    ["$body.nested.hasOwnProperty != 'x'", false],
    ["$body.tags.map != 'x'", false],
  ])("$body paths: %s is %s", (filter, expected) => {
    expect(matches(filter)).toBe(expected);
  });

  it("reads own members only, never inherited ones", () => {
    const data = Object.create({ inherited: "x", nested: { a: 1 } });
    data.own = "y";
    const on: CloudEvent = { ...event, data };
    expect(matches("$body.own = 'y'", on)).toBe(true);
    expect(matches("$body.inherited = 'x'", on)).toBe(false);
    expect(matches("$body.nested.a = 1", on)).toBe(false);
    expect(matches("$body.__proto__.inherited = 'x'", on)).toBe(false);
  });

  it("finds no $body in an event without data (data_base64) and compares the whole data with an empty path", () => {
    const binary: CloudEvent = { id: "b", source: "s", specversion: "1.0", type: "t", data_base64: "AAEC" };
    expect(matches("$body = null", binary)).toBe(false);
    expect(matches("$body != 1", binary)).toBe(false);
    expect(matches("NOT $body = null", binary)).toBe(true);
    expect(matches("$body = 5", { ...binary, data: 5 })).toBe(true);
    expect(matches("$body = null", { ...binary, data: null })).toBe(true);
    expect(matches("$body = 'x'", { ...binary, data: "x" })).toBe(true);
  });

  it("treats an attribute the event lacks as missing", () => {
    const bare: CloudEvent = { id: "b", source: "s", specversion: "1.0", type: "t" };
    for (const filter of ["subject = 'x'", "subject != 'x'", "subject < 'x'", "CONTAINS(subject, '')"]) {
      expect(matches(filter, bare)).toBe(false);
    }
    expect(matches("NOT subject = 'x'", bare)).toBe(true);
  });

  // temperature 21.5, name 'Pump 7', on true, nothing null, tags an array, nested an object.
  it.each([
    ["$body.temperature = 21.5", true],
    ["$body.temperature != 21.5", false],
    ["$body.temperature != 20", true],
    ["$body.temperature < 22", true],
    ["$body.temperature <= 21.5", true],
    ["$body.temperature > 21.5", false],
    ["$body.temperature >= 21.5", true],
    ["$body.temperature > -1e3", true],
    ["$body.zero = -0", true],
    ["$body.count = 3.0", true],
    ["$body.count = 3e0", true],
    ["$body.temperature = '21.5'", false],
    ["$body.temperature != '21.5'", false],
    ["$body.temperature < '3'", false],
    ["$body.name = 'Pump 7'", true],
    ["$body.name != 'pump 7'", true],
    ["$body.name < 'Pump 8'", true],
    ["$body.name > 'Pump 10'", true],
    ["$body.name >= 'Pump 7'", true],
    ["$body.name <= 'Pump 6'", false],
    ["$body.name < 'pump'", true],
    ["$body.name > 5", false],
    ["$body.name != 5", false],
    ["$body.on = true", true],
    ["$body.on != false", true],
    ["$body.on != true", false],
    ["$body.on = 'true'", false],
    ["$body.on = 1", false],
    ["$body.on > false", false],
    ["$body.on >= true", false],
    ["$body.nothing = null", true],
    ["$body.nothing != null", false],
    ["$body.nothing <= null", false],
    ["$body.nothing = false", false],
    ["$body.nothing = 0", false],
    ["$body.name != null", false],
    ["$body.tags = 'a'", false],
    ["$body.tags != 'a'", false],
    ["$body.nested != null", false],
    ["$body.nested = null", false],
  ])("comparing: %s is %s", (filter, expected) => {
    expect(matches(filter)).toBe(expected);
  });

  it("orders strings by UTF-16 code units", () => {
    const on = (name: string): CloudEvent => ({ ...parsedEvent, data: { name } });
    // U+FF5E is above the surrogates that encode U+1F600 in UTF-16, below it in code points.
    expect(matches("$body.name > '😀'", on("\uFF5E"))).toBe(true);
    expect(matches("$body.name < 'a'", on("B"))).toBe(true);
  });

  it.each([
    ["5 < $body.temperature", true],
    ["30 < $body.temperature", false],
    ["21.5 >= $body.temperature", true],
    ["'Pump 7' = $body.name", true],
    ["null = $body.nothing", true],
    ["true = $body.on", true],
    ["false != $body.on", true],
    ["'application/json' = datacontenttype", true],
  ])("literal first: %s is %s", (filter, expected) => {
    expect(matches(filter)).toBe(expected);
  });

  it.each([
    ["STARTS_WITH($body.name, 'Pump')", true],
    ["STARTS_WITH($body.name, 'pump')", false],
    ["STARTS_WITH($body.name, '')", true],
    ["ENDS_WITH($body.name, ' 7')", true],
    ["ENDS_WITH(type, 'Create')", true],
    ["CONTAINS($body.name, 'mp')", true],
    ["CONTAINS($body.name, 'MP')", false],
    ["CONTAINS($body.temperature, '21')", false],
    ["CONTAINS($body.tags, 'a')", false],
    ["CONTAINS($body.missing, '')", false],
    ["starts_with(subject, 'pump')", true],
    ['Contains ( subject , "-" )', true],
  ])("functions: %s is %s", (filter, expected) => {
    expect(matches(filter)).toBe(expected);
  });

  it.each([
    ["true", true],
    ["false", false],
    ["TRUE", true],
    ["False", false],
    ["NOT true", false],
    ["NOT NOT true", true],
    ["true OR false AND false", true],
    ["(true OR false) AND false", false],
    ["NOT false AND false", false],
    ["NOT (false AND false)", true],
    ["false OR NOT false", true],
    ["NOT $body.count = 3", false],
    ["not $body.count = 4 and $body.on = true", true],
    ["$body.count = 4 Or $body.on = TRUE", true],
    ["$body.count = 3 aNd ($body.name = 'x' or subject = 'pump-7')", true],
    ["((((true))))", true],
    ["$BODY.count = 3 AND $Body.nothing = NULL AND $body.on = True", true],
    ["true AND true AND true AND false", false],
    ["false OR false OR false OR true", true],
  ])("logic: %s is %s", (filter, expected) => {
    expect(matches(filter)).toBe(expected);
  });

  it("reads Unicode, quotes and escapes in strings", () => {
    const on = (name: string): CloudEvent => ({ ...parsedEvent, data: { name } });
    expect(matches("$body.name = 'it\\'s'", on("it's"))).toBe(true);
    expect(matches('$body.name = "it\'s"', on("it's"))).toBe(true);
    expect(matches("$body.name = 'say \"hi\"'", on('say "hi"'))).toBe(true);
    expect(matches('$body.name = "say \\"hi\\""', on('say "hi"'))).toBe(true);
    expect(matches("$body.name = 'a\\\\b'", on("a\\b"))).toBe(true);
    expect(matches("$body.name = 'a\\nb\\tc'", on("a\nb\tc"))).toBe(true);
    expect(matches("$body.name = '\\u00e9\\uD83D\\uDE00'", on("é😀"))).toBe(true);
    expect(matches("$body.name = 'é😀'", on("é😀"))).toBe(true);
    expect(matches("$body.name = 'line\nbreak'", on("line\nbreak"))).toBe(true);
  });

  it("keeps no state between evaluations", () => {
    const predicate = compileFilter("$body.count > 2 AND STARTS_WITH(subject, 'pump')");
    expect([
      predicate(parsedEvent),
      predicate({ ...parsedEvent, data: { count: 1 } }),
      predicate(parsedEvent),
    ]).toEqual([true, false, true]);
  });
});

describe("event-route filters: what is refused", () => {
  const attributes = "id, type, source, subject, time, dataschema, datacontenttype, specversion";
  const condition = `a condition: a CloudEvents attribute (${attributes}), $body, a literal, STARTS_WITH, ENDS_WITH, CONTAINS, NOT, '(', true or false`;
  const operators = "a comparison operator (=, !=, <, <=, >, >=)";

  it.each([
    [
      "$body.temperature is 5",
      `position 19 (line 1, column 19): expected ${operators} after '$body.temperature', found 'is'.`,
    ],
    ["", `position 1 (line 1, column 1): expected ${condition}, found the end of the filter.`],
    ["   \n  ", `position 7 (line 2, column 3): expected ${condition}, found the end of the filter.`],
    [
      "Type = 'x'",
      `position 1 (line 1, column 1): expected ${condition}, found 'Type' (attribute names are lowercase).`,
    ],
    [
      "$body\n  .a\t\tis 1",
      `position 13 (line 2, column 7): expected ${operators} after '$body .a', found 'is'.`,
    ],
    ["traceparent = 'x'", `position 1 (line 1, column 1): expected ${condition}, found 'traceparent'.`],
    [
      "type = 'Microsoft",
      "position 18 (line 1, column 18): expected the closing ' of the string that starts at position 8, found the end of the filter.",
    ],
    [
      'type = "x',
      'position 10 (line 1, column 10): expected the closing " of the string that starts at position 8, found the end of the filter.',
    ],
    [
      "type = 'a\\qb'",
      "position 11 (line 1, column 11): expected an escape sequence (\\\\, \\', \\\", \\n, \\t or \\u and four hexadecimal digits) after '\\', found 'q'.",
    ],
    [
      "type = 'a\\u12G4'",
      "position 14 (line 1, column 14): expected four hexadecimal digits after \\u, found 'G'.",
    ],
    [
      "type = 'a\\",
      "position 11 (line 1, column 11): expected an escape sequence (\\\\, \\', \\\", \\n, \\t or \\u and four hexadecimal digits) after '\\', found the end of the filter.",
    ],
    ["type 'x'", `position 6 (line 1, column 6): expected ${operators} after 'type', found the string 'x'.`],
    [
      "type = 'x' 'y'",
      "position 12 (line 1, column 12): expected AND, OR or the end of the filter, found the string 'y'.",
    ],
    ["type = 'x')", "position 11 (line 1, column 11): expected AND, OR or the end of the filter, found ')'."],
    ["(type = 'x'", "position 12 (line 1, column 12): expected AND, OR or ')', found the end of the filter."],
    [
      "type = subject",
      "position 8 (line 1, column 8): expected a literal (a string, a number, true, false or null) after '=', found 'subject'.",
    ],
    [
      "type == 'x'",
      "position 7 (line 1, column 7): expected a literal (a string, a number, true, false or null) after '=', found '='.",
    ],
    [
      "type <> 'x'",
      "position 7 (line 1, column 7): expected a literal (a string, a number, true, false or null) after '<', found '>'.",
    ],
    ["type ! 'x'", `position 6 (line 1, column 6): expected ${operators} after 'type', found '!'.`],
    [
      "type = 'x' && true",
      "position 12 (line 1, column 12): expected AND, OR or the end of the filter, found '&'.",
    ],
    [
      "type = 'x' AND",
      `position 15 (line 1, column 15): expected ${condition}, found the end of the filter.`,
    ],
    ["NOT", `position 4 (line 1, column 4): expected ${condition}, found the end of the filter.`],
    [
      "5 = 6",
      `position 5 (line 1, column 5): expected a CloudEvents attribute (${attributes}) or $body, found the number 6.`,
    ],
    ["'x'", `position 4 (line 1, column 4): expected ${operators} after ''x'', found the end of the filter.`],
    [
      "$body.count = 01",
      "position 16 (line 1, column 16): expected '.', 'e' or the end of the number (a number has no leading zeros), found '1'.",
    ],
    [
      "$body.count = 1.",
      "position 17 (line 1, column 17): expected a digit after the decimal point, found the end of the filter.",
    ],
    [
      "$body.count = 1e+",
      "position 18 (line 1, column 18): expected a digit in the exponent, found the end of the filter.",
    ],
    ["$body.count = -x", "position 16 (line 1, column 16): expected a digit after '-', found 'x'."],
    [
      "$body.count = +1",
      "position 15 (line 1, column 15): expected a literal (a string, a number, true, false or null) after '=', found '+'.",
    ],
    [
      "$body. = 1",
      "position 8 (line 1, column 8): expected a member name after '.' (['name'] for other names), found '='.",
    ],
    ["$body.a-b = 1", "position 9 (line 1, column 9): expected a digit after '-', found 'b'."],
    [
      "$body[-1] = 1",
      "position 7 (line 1, column 7): expected a quoted member name or an array index (a non-negative integer) after '[', found the number -1.",
    ],
    [
      "$body[1.5] = 1",
      "position 7 (line 1, column 7): expected a quoted member name or an array index (a non-negative integer) after '[', found the number 1.5.",
    ],
    [
      "$body[name] = 1",
      "position 7 (line 1, column 7): expected a quoted member name or an array index (a non-negative integer) after '[', found 'name'.",
    ],
    ["$body['a' = 1", "position 11 (line 1, column 11): expected ']', found '='."],
    [
      "STARTS_WITH",
      "position 12 (line 1, column 12): expected '(' after STARTS_WITH, found the end of the filter.",
    ],
    [
      "CONTAINS(name, 'x')",
      `position 10 (line 1, column 10): expected a CloudEvents attribute (${attributes}) or $body as the first argument of CONTAINS, found 'name'.`,
    ],
    [
      "ENDS_WITH(type 'x')",
      "position 16 (line 1, column 16): expected ',' after the first argument of ENDS_WITH, found the string 'x'.",
    ],
    [
      "ENDS_WITH(type, 5)",
      "position 17 (line 1, column 17): expected a string as the second argument of ENDS_WITH, found the number 5.",
    ],
    [
      "ENDS_WITH(type, 'x'",
      "position 20 (line 1, column 20): expected ')' to close ENDS_WITH(, found the end of the filter.",
    ],
    ["type = 'x'\r\n  AND # = 1", `position 19 (line 2, column 7): expected ${condition}, found '#'.`],
    [
      "type\u00a0= 'x'",
      `position 5 (line 1, column 5): expected ${operators} after 'type', found the character U+00A0.`,
    ],
    [
      "$body.😀 = 'smile'",
      "position 7 (line 1, column 7): expected a member name after '.' (['name'] for other names), found '😀'.",
    ],
    ["type = '😀😀' OR 😀", `position 16 (line 1, column 16): expected ${condition}, found '😀'.`],
    [
      "'😀\\x'",
      "position 4 (line 1, column 4): expected an escape sequence (\\\\, \\', \\\", \\n, \\t or \\u and four hexadecimal digits) after '\\', found 'x'.",
    ],
  ])("%j: %s", (filter, message) => {
    const error = errorOf(filter);
    expect(error.status).toBe(400);
    expect(error.code).toBe("InvalidRequestContent");
    expect(error.target).toBe("filter");
    expect(error.message).toBe(`The filter is not valid at ${message}`.replace(/([^.])$/, "$1."));
  });

  it("refuses a filter longer than FILTER_MAX_LENGTH characters, counting code points", () => {
    expect(errorOf(`$body.x = '${"a".repeat(FILTER_MAX_LENGTH)}'`).message).toBe(
      `The filter is ${FILTER_MAX_LENGTH + 12} characters long; at most 2048 are allowed.`,
    );
    // 2,048 astral characters are 4,096 UTF-16 units but 2,048 characters.
    const astral = `'${"😀".repeat(FILTER_MAX_LENGTH - 12)}' = subject`;
    expect(Array.from(astral)).toHaveLength(FILTER_MAX_LENGTH);
    expect(matches(astral)).toBe(false);
    expect(errorOf(`${astral} `).message).toBe(
      "The filter is 2049 characters long; at most 2048 are allowed.",
    );
  });

  it("accepts a literal that fills the length, and quotes at most 20 characters of it", () => {
    const literal = "x".repeat(FILTER_MAX_LENGTH - 12);
    const filter = `subject = '${literal}'`;
    expect(filter).toHaveLength(FILTER_MAX_LENGTH);
    expect(matches(filter, { ...parsedEvent, subject: literal })).toBe(true);
    const message = errorOf(`'${literal}' + 1`).message;
    expect(message).toBe(
      `The filter is not valid at position ${FILTER_MAX_LENGTH - 8} (line 1, column ${FILTER_MAX_LENGTH - 8}): expected a comparison operator (=, !=, <, <=, >, >=) after ''xxxxxxxxxxxxxxxxxx…', found '+'.`,
    );
    expect(errorOf(`subject = '${literal}`).message.length).toBeLessThan(200);
    expect(errorOf(`subject = 1${"0".repeat(2000)}x`).message).toMatch(/found 'x'\.$/);
    expect(errorOf(`type = 'x' ${"y".repeat(2000)}`).message).toMatch(/found 'y{19}…'\.$/);
  });

  it(`bounds nesting at FILTER_MAX_DEPTH (${FILTER_MAX_DEPTH}) parentheses and NOTs`, () => {
    const open = (n: number) => `${"(".repeat(n)}true${")".repeat(n)}`;
    const nots = (n: number) => `${"NOT ".repeat(n)}true`;
    expect(matches(open(FILTER_MAX_DEPTH))).toBe(true);
    expect(matches(nots(FILTER_MAX_DEPTH))).toBe(true);
    expect(matches(`${"NOT (".repeat(FILTER_MAX_DEPTH / 2)}false${")".repeat(FILTER_MAX_DEPTH / 2)}`)).toBe(
      false,
    );
    const expected = "expected at most 32 levels of nested parentheses and NOT";
    expect(errorOf(open(FILTER_MAX_DEPTH + 1)).message).toBe(
      `The filter is not valid at position 33 (line 1, column 33): ${expected}, found '('.`,
    );
    expect(errorOf(nots(FILTER_MAX_DEPTH + 1)).message).toBe(
      `The filter is not valid at position 129 (line 1, column 129): ${expected}, found 'NOT'.`,
    );
    expect(errorOf(`${"NOT (".repeat(17)}true${")".repeat(17)}`).message).toContain(
      `${expected}, found 'NOT'.`,
    );
    // The deepest the length allows: a 400, never a stack overflow.
    expect(errorOf("(".repeat(FILTER_MAX_LENGTH)).message).toContain(expected);
    expect(errorOf(`${"NOT ".repeat(511)}true`).message).toContain(expected);
    expect(errorOf("(".repeat(10_000)).message).toBe(
      "The filter is 10000 characters long; at most 2048 are allowed.",
    );
    expect(errorOf(`${"NOT ".repeat(10_000)}true`).message).toMatch(/^The filter is 40004 characters long/);
    expect(errorOf("(".repeat(1_000_000)).status).toBe(400);
  });

  it("does not nest AND and OR chains: a long flat chain is fine", () => {
    const shortChain = Array.from({ length: 100 }, () => "true").join(" AND ");
    expect(matches(shortChain)).toBe(true);
  });
});
