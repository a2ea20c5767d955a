import { maskConnectionString, parseConnectionString } from "../../src/endpoints/connection-string";
import { deadLetterProblems, maskDeadLetterSecret } from "../../src/endpoints/dead-letter-secret";

const GOOD =
  "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=abc+/=;EntityPath=twins";

describe("parseConnectionString", () => {
  it("reads the four parts, with '=' inside the key", () => {
    expect(parseConnectionString(GOOD)).toEqual({
      ok: true,
      parts: {
        endpoint: "sb://ns.servicebus.windows.net/",
        sharedAccessKeyName: "send",
        sharedAccessKey: "abc+/=",
        entityPath: "twins",
      },
    });
  });

  it("takes keys in any case, extra parts and a trailing semicolon", () => {
    const text =
      "endpoint=sb://127.0.0.1:5672/;sharedaccesskeyname=a;sharedaccesskey=b;entitypath=t;UseDevelopmentEmulator=true;";
    expect(parseConnectionString(text).ok).toBe(true);
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
    const result = parseConnectionString(GOOD.replace("sb://", "https://"));
    expect(result.ok === false && result.problems).toEqual([expect.stringMatching(/Endpoint .*sb:\/\//)]);
  });

  it("refuses a masked key sent back", () => {
    const result = parseConnectionString(maskConnectionString(GOOD));
    expect(result.ok === false && result.problems[0]).toMatch(/masked SharedAccessKey/);
  });

  it("never quotes a value in a problem", () => {
    const result = parseConnectionString("Endpoint=http://evil;SharedAccessKey=hunter2;junk");
    expect(result.ok).toBe(false);
    expect(JSON.stringify(result)).not.toMatch(/hunter2|evil/);
  });
});

describe("maskConnectionString", () => {
  it("replaces only the key's value", () => {
    expect(maskConnectionString(GOOD)).toBe(
      "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=***;EntityPath=twins",
    );
  });

  it("masks the key wherever it stands and in any case", () => {
    expect(maskConnectionString("sharedaccesskey=abc;Endpoint=sb://x/")).toBe(
      "sharedaccesskey=***;Endpoint=sb://x/",
    );
  });
});

describe("dead-letter secret", () => {
  it.each([
    "https://account.blob.core.windows.net/dead-letters?sv=2022-11-02&sp=rw&sig=abc%3D",
    "http://127.0.0.1:10000/devstoreaccount1/dead?sv=2022-11-02&sig=abc",
    "http://localhost:10000/devstoreaccount1/dead?sig=abc",
  ])("accepts %s", (url) => {
    expect(deadLetterProblems(url)).toEqual([]);
  });

  it.each([
    ["not a URL", "dead-letters?sig=x", /must be a URL/],
    ["ftp", "ftp://account.blob.core.windows.net/dead?sig=x", /http or https/],
    ["no container", "https://account.blob.core.windows.net/?sig=x", /exactly one container/],
    ["a blob path", "https://account.blob.core.windows.net/dead/blob?sig=x", /exactly one container/],
    ["no account on a path-style URL", "http://127.0.0.1:10000/dead?sig=x", /account and then the container/],
    [
      "a bad container name",
      "https://account.blob.core.windows.net/Dead_Letters?sig=x",
      /container of 3 to 63/,
    ],
    ["no signature", "https://account.blob.core.windows.net/dead?sv=2022", /sig=/],
  ])("refuses %s", (_label, url, problem) => {
    expect(deadLetterProblems(url)).toEqual([expect.stringMatching(problem)]);
  });

  it("masks the whole query", () => {
    expect(maskDeadLetterSecret("https://a.blob.core.windows.net/dead?sv=1&sig=abc")).toBe(
      "https://a.blob.core.windows.net/dead?***",
    );
  });
});
