import { CREDENTIAL_KEYS, contentProblem, utf8Length } from "../../src/profiles/profile-content";

describe("profile content rules", () => {
  it("accepts a JSON object such as the sample", () => {
    expect(
      contentProblem('{"AllowDBUserOverride":"1","Client_ID":"ExampleClientID","App_ID":"example"}'),
    ).toBeUndefined();
  });

  it.each(["[1,2]", '"text"', "42", "null", "true"])(
    "rejects %s, which is JSON but not an object",
    (content) => {
      expect(contentProblem(content)).toMatch(/must be a JSON object/);
    },
  );

  it("rejects text that is not JSON, saying where", () => {
    expect(contentProblem("{not json")).toBe(
      "must be a JSON object serialized as a string, but it is not valid JSON: unexpected letter at line 1, column 2 (expected a member name in double quotes or '}')",
    );
    expect(contentProblem('{\n "App_ID": "a",\n}')).toMatch(
      /: unexpected '\}' at line 3, column 1 \(expected a member name/,
    );
  });

  it.each(CREDENTIAL_KEYS)("rejects the credential key %s, in any letter case, at any depth", (key) => {
    expect(contentProblem(JSON.stringify({ [key]: "x" }))).toContain(`'${key}'`);
    expect(contentProblem(JSON.stringify({ [key.toUpperCase()]: "x" }))).toContain(key.toUpperCase());
    expect(contentProblem(JSON.stringify({ nested: [{ [key.toLowerCase()]: "x" }] }))).toBeDefined();
  });

  it("names the key but never the value of a credential", () => {
    const problem = contentProblem('{"Password":"hunter2"}');
    expect(problem).toContain("Password");
    expect(problem).not.toContain("hunter2");
  });

  it("does not mistake a value for a key", () => {
    expect(contentProblem('{"note":"Password"}')).toBeUndefined();
  });

  it("counts UTF-8 bytes, not characters", () => {
    expect(utf8Length("é")).toBe(2);
    expect(utf8Length("😀")).toBe(4);
  });
});

describe("deeply nested content", () => {
  it("is refused, not walked into a stack overflow", () => {
    const deep = `{"a":${"[".repeat(300_000)}${"]".repeat(300_000)}}`;
    expect(contentProblem(deep)).toMatch(/nest deeper than/);
  });
});

describe("duplicate member names (RFC 7493)", () => {
  it("refuses a credential hidden by a later copy of its parent member", () => {
    const problem = contentProblem('{"conn":{"Password":"hunter2"},"conn":1}');
    expect(problem).toMatch(/more than once/);
    expect(problem).toContain("/conn");
    expect(problem).not.toContain("hunter2");
  });

  it("refuses a name spelled once plainly and once with escapes", () => {
    expect(contentProblem('{"Password":"a","Pass\\u0077ord":"b"}')).toMatch(/more than once/);
    expect(contentProblem('{"x":[{"\\ud83d\\ude00":1,"😀":2}]}')).toContain("/x/0/😀");
  });

  it("refuses __proto__ twice, and finds a credential under a single __proto__", () => {
    expect(contentProblem('{"__proto__":{},"__proto__":{"a":1}}')).toMatch(/more than once/);
    expect(contentProblem('{"__proto__":{"Password":"x"}}')).toContain("'Password'");
    expect(({} as Record<string, unknown>).Password).toBeUndefined();
  });
});

describe("credential keys that differ only by case", () => {
  it("are not duplicates, but each spelling is a credential", () => {
    expect(contentProblem('{"password":"a","PASSWORD":"b"}')).toMatch(/must not carry credentials/);
    expect(contentProblem('{"PaSsWoRd":"a"}')).toMatch(/must not carry credentials/);
    expect(contentProblem('{"Pass\\u0057ORD":"a"}')).toContain("'PassWORD'");
  });
});
