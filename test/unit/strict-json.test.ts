import fc from "fast-check";
import { MAX_JSON_DEPTH } from "../../src/common/json-depth";
import { parseStrictJson } from "../../src/common/strict-json";

// parseStrictJson is JSON.parse plus the I-JSON duplicate-name rule and the depth cap. The model
// below writes JSON text itself (JSON.stringify cannot write a duplicate, nor spell a name with
// escapes), so a property can say exactly where a duplicate is and how it is spelled.
type Doc = { leaf: null | boolean | number | string } | { entries: [string, Doc][] } | { items: Doc[] };

const name = fc.oneof(
  fc.string({ unit: "binary", maxLength: 6 }),
  fc.constantFrom("__proto__", "constructor", "Password", "", "a/b~c", "é", "😀"),
);
const leaf = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ unit: "binary", maxLength: 6 }),
);
/** JSON documents with unique names in every object. */
const { doc } = fc.letrec<{ doc: Doc; object: Doc; array: Doc }>((tie) => ({
  doc: fc.oneof(
    { depthSize: "small" },
    leaf.map((value) => ({ leaf: value })),
    tie("object"),
    tie("array"),
  ),
  object: fc
    .uniqueArray(fc.tuple(name, tie("doc")), { selector: ([key]) => key, maxLength: 4 })
    .map((entries) => ({ entries })),
  array: fc.array(tie("doc"), { maxLength: 4 }).map((items) => ({ items })),
}));

/** Writes `text` as a JSON string literal, escaping each code unit or not as `shouldEscape` decides. */
function spell(text: string, shouldEscape: () => boolean): string {
  const short: Record<string, string> = { '"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r" };
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    const code = text.charCodeAt(i);
    const mustEscape = code < 0x20 || char === '"' || char === "\\";
    if (mustEscape || shouldEscape()) {
      const hex = code.toString(16).padStart(4, "0");
      out +=
        short[char] !== undefined && shouldEscape()
          ? short[char]
          : `\\u${shouldEscape() ? hex.toUpperCase() : hex}`;
    } else {
      out += char;
    }
  }
  return `${out}"`;
}

function write(node: Doc, shouldEscape: () => boolean, space: () => string): string {
  if ("leaf" in node)
    return typeof node.leaf === "string" ? spell(node.leaf, shouldEscape) : JSON.stringify(node.leaf);
  if ("items" in node)
    return `[${node.items.map((item) => space() + write(item, shouldEscape, space)).join(",")}]`;
  const members = node.entries.map(
    ([key, value]) => `${space()}${spell(key, shouldEscape)}${space()}:${write(value, shouldEscape, space)}`,
  );
  return `{${members.join(",")}${space()}}`;
}

function insert<T>(list: T[], at: number, item: T): T[] {
  const index = at % (list.length + 1);
  return [...list.slice(0, index), item, ...list.slice(index)];
}

const pointerSegment = (segment: string) => `/${segment.replace(/~/g, "~0").replace(/\//g, "~1")}`;

/** A document with exactly one repeated name, somewhere below a random path, and that name's pointer. */
const withDuplicate = fc
  .record({
    path: fc.array(
      fc.oneof(
        fc.record({ siblings: doc, member: name, at: fc.nat() }),
        fc.record({ before: fc.array(doc, { maxLength: 3 }), after: fc.array(doc, { maxLength: 3 }) }),
      ),
      { maxLength: 8 },
    ),
    siblings: doc,
    member: name,
    first: doc,
    second: doc,
    firstAt: fc.nat(),
    secondAt: fc.nat(),
  })
  .map(({ path, siblings, member, first, second, firstAt, secondAt }) => {
    const others = (node: Doc, except: string) =>
      "entries" in node ? node.entries.filter(([key]) => key !== except) : [];
    let entries = insert(others(siblings, member), firstAt, [member, first] as [string, Doc]);
    // The second copy goes after the first, at any distance.
    const firstIndex = entries.findIndex(([key]) => key === member);
    const tail = insert(entries.slice(firstIndex + 1), secondAt, [member, second] as [string, Doc]);
    entries = [...entries.slice(0, firstIndex + 1), ...tail];
    let node: Doc = { entries };
    let pointer = pointerSegment(member);
    for (const step of [...path].reverse()) {
      if ("member" in step) {
        node = {
          entries: insert(others(step.siblings, step.member), step.at, [step.member, node] as [string, Doc]),
        };
        pointer = pointerSegment(step.member) + pointer;
      } else {
        node = { items: [...step.before, node, ...step.after] };
        pointer = `/${step.before.length}${pointer}`;
      }
    }
    return { node, pointer };
  });

const writing = fc.gen().map((g) => ({
  shouldEscape: () => g(fc.integer, { min: 0, max: 3 }) === 0,
  space: () => g(fc.constantFrom, "", "", " ", "\n", "\t\r "),
}));

describe("parseStrictJson (properties)", () => {
  it("returns exactly JSON.parse's value for JSON without a repeated name", () => {
    fc.assert(
      fc.property(doc, writing, (node, { shouldEscape, space }) => {
        const text = write(node, shouldEscape, space);
        expect(parseStrictJson(text)).toEqual({ ok: true, value: JSON.parse(text) });
      }),
      { numRuns: 500 },
    );
  });

  it("refuses a repeated name at any depth, however it is spelled, naming it by its pointer", () => {
    fc.assert(
      fc.property(withDuplicate, writing, ({ node, pointer }, { shouldEscape, space }) => {
        const text = write(node, shouldEscape, space);
        expect(() => JSON.parse(text)).not.toThrow();
        expect(parseStrictJson(text)).toEqual({
          ok: false,
          refusal: { reason: "duplicate-member", pointer },
        });
      }),
      { numRuns: 500 },
    );
  });

  it("never throws, and agrees with JSON.parse on whatever it accepts", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: "binary" }), fc.json()), (text) => {
        const result = parseStrictJson(text);
        if (result.ok) expect(result.value).toEqual(JSON.parse(text));
        else expect(result.refusal.reason).not.toBe("too-deep");
      }),
      { numRuns: 500 },
    );
  });
});

describe("parseStrictJson (objects of many members)", () => {
  // Names are kept in an array for small objects and a Set past a few: a repeat must be found on
  // either side of that switch, in either order, and a large object without one accepted.
  it("finds a repeat among up to 40 names wherever the two copies are", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ maxLength: 3 }), { minLength: 1, maxLength: 40 }),
        fc.nat(),
        fc.nat(),
        fc.boolean(),
        (names, pick, at, repeat) => {
          const members = names.map((name, index) => `${JSON.stringify(name)}:${index}`);
          const repeated = names[pick % names.length] as string;
          if (repeat) members.splice(at % (members.length + 1), 0, `${JSON.stringify(repeated)}:-1`);
          const result = parseStrictJson(`{"outer":{${members.join(",")}}}`);
          if (!repeat) expect(result.ok).toBe(true);
          else {
            const pointer = `/outer/${repeated.replace(/~/g, "~0").replace(/\//g, "~1")}`;
            expect(result).toEqual({ ok: false, refusal: { reason: "duplicate-member", pointer } });
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe("parseStrictJson (cases)", () => {
  it("refuses the bypass of issue 11: a credential hidden by a later copy", () => {
    expect(parseStrictJson('{"conn":{"Password":"hunter2"},"conn":1}')).toEqual({
      ok: false,
      refusal: { reason: "duplicate-member", pointer: "/conn" },
    });
  });

  it("compares names after unescaping, surrogate pairs included", () => {
    const refused = (text: string) => (parseStrictJson(text).ok ? undefined : parseStrictJson(text));
    expect(refused('{"Password":1,"Pass\\u0077ord":2}')).toBeDefined();
    expect(refused('{"\\ud83d\\ude00":1,"😀":2}')).toBeDefined();
    expect(refused('{"\\u00e9":1,"é":2}')).toBeDefined();
  });

  it("takes names that differ by letter case or Unicode normalisation as different (RFC 8259 §8.3)", () => {
    expect(parseStrictJson('{"Password":1,"password":2}').ok).toBe(true);
    expect(parseStrictJson('{"\\u00e9":1,"e\\u0301":2}').ok).toBe(true);
  });

  it("escapes '~' and '/' in the pointer (RFC 6901)", () => {
    expect(parseStrictJson('{"a/b~":[{"x":1,"x":2}]}')).toEqual({
      ok: false,
      refusal: { reason: "duplicate-member", pointer: "/a~1b~0/0/x" },
    });
  });

  it("keeps __proto__ an own member, pollutes nothing, and refuses it twice", () => {
    const result = parseStrictJson('{"__proto__":{"polluted":true}}');
    expect(result.ok && Object.hasOwn(result.value as object, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(parseStrictJson('{"__proto__":1,"__proto__":2}').ok).toBe(false);
  });

  it("does not take a string value, or a string holding quotes and backslashes, for a name", () => {
    expect(parseStrictJson('{"a":"b","c":"b"}').ok).toBe(true);
    expect(parseStrictJson('{"a":"\\"b\\\\\\":","b\\\\":1,"b\\\\\\\\":2}').ok).toBe(true);
  });

  it("caps nesting at MAX_JSON_DEPTH without overflowing the stack", () => {
    const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
    expect(parseStrictJson(nested(MAX_JSON_DEPTH)).ok).toBe(true);
    expect(parseStrictJson(nested(MAX_JSON_DEPTH + 1))).toEqual({
      ok: false,
      refusal: { reason: "too-deep", maxDepth: MAX_JSON_DEPTH },
    });
    expect(parseStrictJson(`{"a":${nested(400_000)}}`).ok).toBe(false);
  });

  it("reports a syntax error without quoting the text", () => {
    const result = parseStrictJson('{"key":hunter2}');
    expect(result.ok).toBe(false);
    expect(JSON.stringify(result)).not.toContain("hunter2");
  });

  it("refuses a lone surrogate in a value or a name, escaped or raw, with its pointer (RFC 7493 §2.1)", () => {
    const refusal = (text: string) => {
      const result = parseStrictJson(text);
      return result.ok ? undefined : result.refusal;
    };
    expect(refusal('{"id":"X-\\ud800"}')).toEqual({ reason: "lone-surrogate", pointer: "/id" });
    expect(refusal('[1,{"a":["x","\\udfff\\ud800"]}]')).toEqual({
      reason: "lone-surrogate",
      pointer: "/1/a/1",
    });
    expect(refusal('{"a":{"\\udbff":1}}')).toEqual({ reason: "lone-surrogate", pointer: "/a/\udbff" });
    expect(refusal('"\ud800"')).toEqual({ reason: "lone-surrogate", pointer: "" });
    // Pairs, escaped, raw or mixed, and an escaped backslash before "ud800", are text.
    for (const text of ['"\\ud83d\\ude00"', '"😀"', '"\ud83d\\ude00"', '"\\\\ud800"']) {
      expect(parseStrictJson(text)).toEqual({ ok: true, value: JSON.parse(text) });
    }
  });

  it("refuses a number a double cannot hold (Infinity), keeps those that only round (RFC 7493 §2.2)", () => {
    for (const number of ["1e400", "-1E+400", `${"9".repeat(400)}`, "1.5e309"]) {
      expect(parseStrictJson(`{"a":[0,${number}]}`)).toEqual({
        ok: false,
        refusal: { reason: "number-out-of-range", pointer: "/a/1" },
      });
    }
    expect(parseStrictJson("1e400")).toEqual({
      ok: false,
      refusal: { reason: "number-out-of-range", pointer: "" },
    });
    for (const number of ["1.7976931348623157e308", "-1e-400", "0.1000000000000000000001", "-0"]) {
      expect(parseStrictJson(`[${number}]`)).toEqual({ ok: true, value: [Number(number)] });
    }
  });

  // Linear time, counted rather than timed (a loaded machine is slow, not quadratic): each text
  // of 1 MiB is read a few times over (3 to 7 characters counted per character today), never once
  // per name, string or number before it, which at these sizes would count in the thousands.
  const shapes: [string, () => string][] = [
    ["many names", () => `{${Array.from({ length: 80_000 }, (_, i) => `"k\\u0030${i}":0`).join(",")}}`],
    ["one name of many backslashes", () => `{"${"\\\\".repeat(500_000)}":1}`],
    ["many objects", () => `[${Array.from({ length: 200_000 }, () => '{"a":1}').join(",")}]`],
    // Every string decoded to look for a lone surrogate, every number read.
    ["many escaped strings", () => `[${Array.from({ length: 60_000 }, () => '"\\ud83d\\ude00"').join(",")}]`],
    ["many numbers", () => `[${Array.from({ length: 120_000 }, (_, i) => `${i}.5e3`).join(",")}]`],
  ];
  it.each(shapes)("scans 1 MiB of %s in linear time", (_shape, make) => {
    const text = make();
    expect(text.length).toBeGreaterThan(900_000);
    const budget = 10 * text.length;
    const { ok, steps } = countedParse(text, budget);
    expect(steps).toBeLessThanOrEqual(budget);
    expect(ok).toBe(true);
  });
});

/**
 * parseStrictJson on `text`, its work counted in characters: one for each it reads alone
 * (charCodeAt), and the length of each string it cuts out (slice) or has a built-in walk through
 * (includes, a RegExp, JSON.parse), and of each array it searches (includes). The built-ins are
 * wrapped for the call only. Past `budget` the call is stopped (`ok` undefined), so a quadratic
 * scan fails in a moment instead of running for minutes.
 */
function countedParse(text: string, budget: number): { ok: boolean | undefined; steps: number } {
  const overBudget = new Error("over budget");
  let steps = 0;
  const count = (characters: number) => {
    steps += characters;
    if (steps > budget) throw overBudget;
  };
  const { charCodeAt, slice, includes } = String.prototype;
  const { exec } = RegExp.prototype;
  const arrayIncludes = Array.prototype.includes;
  const { parse } = JSON;
  String.prototype.charCodeAt = function (this: string, index: number) {
    count(1);
    return charCodeAt.call(this, index);
  };
  String.prototype.slice = function (this: string, start?: number, end?: number) {
    const cut = slice.call(this, start, end);
    count(cut.length);
    return cut;
  };
  String.prototype.includes = function (this: string, search: string, position?: number) {
    count(this.length);
    return includes.call(this, search, position);
  };
  // RegExp.prototype.test, and every other RegExp method, goes through exec.
  RegExp.prototype.exec = function (this: RegExp, input: string) {
    count(String(input).length);
    return exec.call(this, input);
  };
  Array.prototype.includes = function (this: unknown[], item: unknown, from?: number) {
    count(this.length);
    return arrayIncludes.call(this, item, from);
  };
  JSON.parse = (json: string, reviver?: Parameters<typeof parse>[1]) => {
    count(json.length);
    return parse(json, reviver);
  };
  let ok: boolean | undefined;
  try {
    ok = parseStrictJson(text).ok;
  } catch (error) {
    if (error !== overBudget) throw error;
  } finally {
    Object.assign(String.prototype, { charCodeAt, slice, includes });
    RegExp.prototype.exec = exec;
    Array.prototype.includes = arrayIncludes;
    JSON.parse = parse;
  }
  return { ok, steps };
}
