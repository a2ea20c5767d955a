import { maskConnectionString, parseConnectionString } from "../../src/endpoints/connection-string";
import { deadLetterProblems, maskDeadLetterSecret } from "../../src/endpoints/dead-letter-secret";

const GOOD =
  "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=abc+/=;EntityPath=twins";
const KEY = "c2VjcmV0LWtleS12YWx1ZQ==";

function problemsOf(text: string): string[] {
  const result = parseConnectionString(text);
  return result.ok ? [] : result.problems;
}

describe("parseConnectionString", () => {
  it("reads the four parts, with '=' inside the key", () => {
    expect(parseConnectionString(GOOD)).toEqual({
      ok: true,
      value: {
        text: GOOD,
        parts: {
          endpoint: "sb://ns.servicebus.windows.net/",
          authority: { hostname: "ns.servicebus.windows.net" },
          sharedAccessKeyName: "send",
          sharedAccessKey: "abc+/=",
          entityPath: "twins",
        },
        masked:
          "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=***;EntityPath=twins",
      },
    });
  });

  it("takes the emulator flag, empty parts and a trailing semicolon", () => {
    const text =
      "Endpoint=sb://127.0.0.1:5672/;;SharedAccessKeyName=a;SharedAccessKey=b;EntityPath=t;UseDevelopmentEmulator=true;";
    const result = parseConnectionString(text);
    expect(result.ok && result.value.parts.useDevelopmentEmulator).toBe(true);
    // The mask keeps the text as written, empty parts and all, hiding only the key.
    expect(result.ok && result.value.masked).toBe(maskConnectionString(text));
    expect(result.ok && result.value.masked).toBe(text.replace("SharedAccessKey=b", "SharedAccessKey=***"));
  });

  it.each(["Endpoint", "SharedAccessKeyName", "SharedAccessKey", "EntityPath"])(
    "names a missing %s",
    (part) => {
      const text = GOOD.split(";")
        .filter((segment) => !segment.startsWith(`${part}=`))
        .join(";");
      expect(parseConnectionString(text)).toEqual({ ok: false, problems: [`is missing ${part}`] });
    },
  );

  it("names an Endpoint that is not sb://", () => {
    expect(problemsOf(GOOD.replace("sb://", "https://"))).toEqual([
      expect.stringMatching(/Endpoint .*sb:\/\//),
    ]);
  });

  it("refuses a masked key sent back", () => {
    expect(problemsOf(maskConnectionString(GOOD))[0]).toMatch(/masked SharedAccessKey/);
  });

  it("never quotes a value in a problem", () => {
    const result = parseConnectionString("Endpoint=http://evil;SharedAccessKey=hunter2;junk");
    expect(result.ok).toBe(false);
    expect(JSON.stringify(result)).not.toMatch(/hunter2|evil/);
  });
});

// The Service Bus SDK reads keys case-sensitively, trims blanks, lets the last duplicate win and
// also authenticates with SharedAccessSignature: every spelling it would read differently from
// this parser, or that could carry a credential past the mask, is refused.
describe("alternate spellings of the keys", () => {
  it("refuses SharedAccessSignature, naming the key and never its value", () => {
    const signature = "SharedAccessSignature sr=ns&sig=c2lnbmF0dXJl&se=1&skn=send";
    const problems = problemsOf(
      `Endpoint=sb://ns.servicebus.windows.net/;SharedAccessSignature=${signature};EntityPath=t`,
    );
    expect(problems).toContainEqual(expect.stringMatching(/SharedAccessSignature/));
    expect(JSON.stringify(problems)).not.toMatch(/c2lnbmF0dXJl|sr=ns/);
  });

  it.each([
    ["a lower-case key", `${GOOD};sharedaccesskey=${KEY}`, /sharedaccesskey/],
    ["an unknown key", `${GOOD};TransportType=AmqpWebSockets`, /TransportType/],
  ])("refuses %s, naming it", (_label, text, named) => {
    const problems = problemsOf(text);
    expect(problems).toContainEqual(expect.stringMatching(named));
    expect(JSON.stringify(problems)).not.toContain(KEY);
  });

  it.each([
    ["a word that reads as a key name", "SecretToken"],
    ["a secret pasted as a key", "c2VjcmV0LWtleS12YWx1ZQ"],
    ["a misspelt key", "SharedAccesKey"],
  ])("names an unknown key by its position only: %s", (_label, key) => {
    const problems = problemsOf(`${GOOD};${key}=${KEY}`);
    expect(problems).toEqual([expect.stringContaining("the key of part 5 (not shown)")]);
    expect(JSON.stringify(problems)).not.toContain(key);
    expect(maskConnectionString(`${GOOD};${key}=${KEY}`)).not.toContain(key);
  });

  it("names a repeated unknown key by its position", () => {
    const problems = problemsOf(`${GOOD};Junk=1;Junk=2`);
    expect(problems).toContainEqual(expect.stringContaining("the key of part 6 (not shown) more than once"));
    expect(JSON.stringify(problems)).not.toContain("Junk");
  });

  it("does not quote a key that does not look like a key name (it may be a piece of a secret)", () => {
    const problems = problemsOf(`${GOOD};${KEY.slice(0, 12)}+x=${KEY}`);
    expect(problems).toHaveLength(1);
    expect(JSON.stringify(problems)).not.toContain(KEY.slice(0, 12));
  });

  it.each([
    ["the same key twice", `${GOOD};SharedAccessKey=${KEY}`],
    ["the same key twice in another case", `${GOOD};SHAREDACCESSKEY=${KEY}`],
    ["the same key twice with blanks", `${GOOD}; SharedAccessKey =${KEY}`],
  ])("refuses %s without quoting a value", (_label, text) => {
    const problems = problemsOf(text);
    expect(problems.length).toBeGreaterThan(0);
    expect(JSON.stringify(problems)).not.toContain(KEY);
  });

  it.each([
    ["a blank before a key", GOOD.replace(";SharedAccessKey=", "; SharedAccessKey=")],
    ["a blank after a key", GOOD.replace(";SharedAccessKey=", ";SharedAccessKey =")],
    ["a blank around a value", GOOD.replace("=abc+/=", "= abc+/= ")],
    ["a new line at the end", `${GOOD}\n`],
    ["a quoted key value", GOOD.replace("abc+/=", `"abc+/="`)],
    ["a quoted key name", GOOD.replace("=send", "='send'")],
    ["a part without '='", `${GOOD};junk`],
    ["a part without a key", `${GOOD};=abc`],
    ["an emulator flag that is not true or false", `${GOOD};UseDevelopmentEmulator=yes`],
  ])("refuses %s", (_label, text) => {
    expect(problemsOf(text)).not.toEqual([]);
  });

  it.each([
    ["user information", "sb://user:pass@ns.servicebus.windows.net/"],
    ["a path", "sb://ns.servicebus.windows.net/path"],
    ["a query", "sb://ns.servicebus.windows.net/?x=1"],
    ["an upper-case scheme", "SB://ns.servicebus.windows.net/"],
    ["a second scheme the SDK would read as the host", "sb://ns.servicebus.windows.net/x://evil.example/"],
  ])("refuses an Endpoint with %s", (_label, endpoint) => {
    expect(problemsOf(GOOD.replace("sb://ns.servicebus.windows.net/", endpoint))).toEqual([
      expect.stringMatching(/Endpoint/),
    ]);
  });
});

describe("maskConnectionString", () => {
  it("replaces only the key's value", () => {
    expect(maskConnectionString(GOOD)).toBe(
      "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=***;EntityPath=twins",
    );
  });

  it("keeps the emulator flag and empty parts", () => {
    expect(
      maskConnectionString("Endpoint=sb://127.0.0.1:5672/;;SharedAccessKey=b;UseDevelopmentEmulator=true;"),
    ).toBe("Endpoint=sb://127.0.0.1:5672/;;SharedAccessKey=***;UseDevelopmentEmulator=true;");
  });

  // Documents stored before the stricter rules may hold any of these: none may show a secret.
  it.each([
    ["a lower-case key", `sharedaccesskey=${KEY};Endpoint=sb://x/`],
    ["a blank-padded key", ` SharedAccessKey = ${KEY} ;Endpoint=sb://x/`],
    ["a SharedAccessSignature", `Endpoint=sb://x/;SharedAccessSignature=SharedAccessSignature sig=${KEY}`],
    ["an unknown key", `Endpoint=sb://x/;Password=${KEY}`],
    ["a part without '='", `Endpoint=sb://x/;${KEY}`],
    ["an Endpoint with user information", `Endpoint=sb://u:${KEY}@x/;SharedAccessKeyName=a`],
    ["a duplicate kept key", `EntityPath=t;EntityPath=${KEY}`],
  ])("hides every value but the non-secret ones, for %s", (_label, text) => {
    expect(maskConnectionString(text)).not.toContain(KEY);
  });
});

describe("dead-letter secret", () => {
  it.each([
    "https://account.blob.core.windows.net/dead-letters?sv=2022-11-02&sp=rcwl&sig=abc%3D",
    "http://127.0.0.1:10000/devstoreaccount1/dead?sv=2022-11-02&sp=cw&se=2999-01-01&sig=abc",
    "http://localhost:10000/devstoreaccount1/dead?sp=racwdl&sig=abc",
  ])("accepts %s", (url) => {
    expect(deadLetterProblems(url)).toEqual([]);
  });

  it.each([
    ["not a URL", "dead-letters?sp=cw&sig=x", /must be a URL/],
    ["ftp", "ftp://account.blob.core.windows.net/dead?sp=cw&sig=x", /http or https/],
    ["no container", "https://account.blob.core.windows.net/?sp=cw&sig=x", /exactly one container/],
    ["a blob path", "https://account.blob.core.windows.net/dead/blob?sp=cw&sig=x", /exactly one container/],
    [
      "no account on a path-style URL",
      "http://127.0.0.1:10000/dead?sp=cw&sig=x",
      /account and then the container/,
    ],
    [
      "a bad container name",
      "https://account.blob.core.windows.net/Dead_Letters?sp=cw&sig=x",
      /container of 3 to 63/,
    ],
    ["no signature", "https://account.blob.core.windows.net/dead?sv=2022", /sig=/],
    [
      "user information",
      "https://user:hunter2@account.blob.core.windows.net/dead?sp=cw&sig=x",
      /user information/,
    ],
    ["a user name only", "https://user@account.blob.core.windows.net/dead?sp=cw&sig=x", /user information/],
    [
      "an empty user information",
      "https://@account.blob.core.windows.net/dead?sp=cw&sig=x",
      /user information/,
    ],
    [
      "user information behind a backslash",
      "https://evil.example\\@account.blob.core.windows.net/dead?sp=cw&sig=x",
      /user information/,
    ],
  ])("refuses %s", (_label, url, problem) => {
    const problems = deadLetterProblems(url);
    expect(problems).toEqual([expect.stringMatching(problem)]);
    expect(JSON.stringify(problems)).not.toContain("hunter2");
  });

  const base = "https://account.blob.core.windows.net/dead";
  it.each([
    ["no permissions", `${base}?sv=2022-11-02&sig=s3cr3t`, /permissions \(sp=\) once/],
    ["empty permissions", `${base}?sp=&sig=s3cr3t`, /permissions \(sp=\) once/],
    ["two permissions", `${base}?sp=cw&sp=rcwl&sig=s3cr3t`, /permissions \(sp=\) once/],
    ["permissions in two spellings", `${base}?sp=cw&SP=r&sig=s3cr3t`, /permissions \(sp=\) once/],
    ["no create", `${base}?sp=rwl&sig=s3cr3t`, /lacks create \(c\) permission/],
    ["no write", `${base}?sp=rcl&sig=s3cr3t`, /lacks write \(w\) permission/],
    ["neither", `${base}?sp=rl&sig=s3cr3t`, /lacks create \(c\) and write \(w\) permission/],
    ["two signatures", `${base}?sp=cw&sig=s3cr3t&sig=other`, /exactly one signature/],
    ["a signature in two spellings", `${base}?sp=cw&sig=s3cr3t&SIG=other`, /exactly one signature/],
    ["a percent-encoded second signature", `${base}?sp=cw&sig=s3cr3t&s%69g=other`, /exactly one signature/],
    ["an expired token", `${base}?sp=cw&se=2020-01-01T00:00:00Z&sig=s3cr3t`, /has expired \(se=\)/],
  ])("refuses a SAS token with %s, naming the rule and never the signature", (_label, url, problem) => {
    const problems = deadLetterProblems(url);
    expect(problems).toEqual([expect.stringMatching(problem)]);
    expect(JSON.stringify(problems)).not.toContain("s3cr3t");
  });

  it("masks the whole query", () => {
    expect(maskDeadLetterSecret("https://a.blob.core.windows.net/dead?sv=1&sig=abc")).toBe(
      "https://a.blob.core.windows.net/dead?***",
    );
  });

  it("masks user information a document stored before the rule may hold", () => {
    const masked = maskDeadLetterSecret("https://user:hunter2@a.blob.core.windows.net/dead?sig=abc");
    expect(masked).not.toContain("hunter2");
    expect(masked).not.toContain("abc");
    expect(masked).toBe("https://***@a.blob.core.windows.net/dead?***");
  });
});
