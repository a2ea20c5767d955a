import { HttpRequest } from "@azure/functions";
import { InvalidApiVersion, InvalidRequestContent } from "../../src/common/errors";
import { checkApiVersion } from "../../src/http/api-version";
import { listIdentity, nextLink, readPageRequest } from "../../src/http/paging";
import { queryValue } from "../../src/http/query";

const get = (query: string) => new HttpRequest({ method: "GET", url: `http://localhost/things${query}` });

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

// ARM reads query parameter names case-insensitively: so does the service, and a parameter given
// twice with different values is a 400 rather than a guess at which one counts.
describe("queryValue", () => {
  it.each(["api-version", "API-VERSION", "Api-Version", "aPi-VeRsIoN"])("finds %s", (name) => {
    expect(queryValue(get(`?${name}=2026-11-01`), "api-version")).toBe("2026-11-01");
  });

  it("is null when absent", () => {
    expect(queryValue(get(""), "api-version")).toBeNull();
    expect(queryValue(get("?api-versions=1"), "api-version")).toBeNull();
  });

  it("takes the same value repeated", () => {
    expect(queryValue(get("?api-version=1&API-VERSION=1"), "api-version")).toBe("1");
  });

  it("refuses two values, whatever the spellings", () => {
    expect(thrown(() => queryValue(get("?api-version=1&api-version=2"), "api-version"))).toBeInstanceOf(
      InvalidRequestContent,
    );
    expect(thrown(() => queryValue(get("?api-version=1&Api-Version=2"), "api-version"))).toMatchObject({
      target: "api-version",
    });
  });

  it("reads percent-encoded names as decoded, and folds only ASCII letters", () => {
    expect(queryValue(get("?%24TOP=5"), "$top")).toBe("5");
    // The Kelvin sign lower-cases to 'k' in JavaScript; ARM keeps it apart.
    expect(queryValue(get("?$s\u212AipToken=x"), "$skipToken")).toBeNull();
  });
});

describe("api-version", () => {
  const supported = ["2026-11-01"] as const;

  it("refuses an unsupported version in any spelling of the name", () => {
    for (const name of ["api-version", "API-VERSION", "Api-Version"]) {
      expect(thrown(() => checkApiVersion(get(`?${name}=bogus`), supported))).toBeInstanceOf(
        InvalidApiVersion,
      );
    }
  });

  it("refuses two different versions with InvalidApiVersionParameter", () => {
    const error = thrown(() => checkApiVersion(get("?api-version=2026-11-01&API-VERSION=bogus"), supported));
    expect(error).toBeInstanceOf(InvalidApiVersion);
  });

  it("takes a supported version in any spelling of the name", () => {
    expect(checkApiVersion(get("?API-VERSION=2026-11-01"), supported)).toBe("2026-11-01");
  });
});

describe("skip tokens", () => {
  const profiles = listIdentity("authenticationProfiles", {});
  const instanceA = listIdentity("x/{instanceName}/endpoints", { instanceName: "Factory-1" });
  const instanceB = listIdentity("x/{instanceName}/endpoints", { instanceName: "factory-2" });

  function tokenOf(list: string, query = ""): string {
    const link = new URL(nextLink(get(query), '{"range":1}', {}, list));
    return link.searchParams.get("$skipToken") ?? "";
  }

  it("reads back a token of its own list", () => {
    const token = tokenOf(instanceA);
    expect(readPageRequest(get(`?$skipToken=${token}`), instanceA).continuation).toBe('{"range":1}');
    // Names compare as ARM compares them: the same instance in another casing is the same list.
    const sameInstance = listIdentity("x/{instanceName}/endpoints", { instanceName: "FACTORY-1" });
    expect(readPageRequest(get(`?$SKIPTOKEN=${token}`), sameInstance).continuation).toBe('{"range":1}');
  });

  it.each([
    ["another instance's list", () => instanceB],
    ["another kind of list", () => profiles],
  ])("refuses a token in %s with a 400 naming $skipToken", (_label, other) => {
    const error = thrown(() => readPageRequest(get(`?$skipToken=${tokenOf(instanceA)}`), other()));
    expect(error).toBeInstanceOf(InvalidRequestContent);
    expect(error).toMatchObject({ target: "$skipToken", message: expect.stringContaining("another list") });
  });

  it.each([
    ["not base64url", "a+b"],
    ["a bare continuation (the older form)", Buffer.from('{"range":1}').toString("base64url")],
    ["not JSON", Buffer.from("nope").toString("base64url")],
    [
      "a continuation that is not JSON",
      Buffer.from(JSON.stringify({ l: profiles, c: "x{" })).toString("base64url"),
    ],
  ])("refuses %s", (_label, token) => {
    expect(thrown(() => readPageRequest(get(`?$skipToken=${token}`), profiles))).toBeInstanceOf(
      InvalidRequestContent,
    );
  });

  it("replaces every spelling of $skipToken and drops every spelling of code in nextLink", () => {
    const link = new URL(nextLink(get("?$SkipToken=old&CODE=k&code=k&$top=2"), '{"r":2}', {}, profiles));
    expect([...link.searchParams.keys()].sort()).toEqual(["$skipToken", "$top"]);
  });

  it("reads $top in any spelling, and refuses two values", () => {
    expect(readPageRequest(get("?$TOP=5"), profiles).pageSize).toBe(5);
    expect(thrown(() => readPageRequest(get("?$top=5&$Top=6"), profiles))).toBeInstanceOf(
      InvalidRequestContent,
    );
  });
});
