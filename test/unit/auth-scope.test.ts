import fc from "fast-check";
import { pathSegments, requestSegments, scopePath } from "../../src/auth/scope";

describe("requestSegments", () => {
  const template = "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/X.Y/t/{name}";

  it("puts each parameter's value in one segment, whatever it holds", () => {
    const segments = requestSegments(template, { subscriptionId: "s", resourceGroupName: "a/b", name: ".." });
    expect(segments).toEqual(["subscriptions", "s", "resourceGroups", "a/b", "providers", "X.Y", "t", ".."]);
  });

  it("reads the template's catch-all parameters too, and keeps fixed segments as written", () => {
    expect(requestSegments("authenticationProfiles/{*rest}", { rest: "x/y" })).toEqual([
      "authenticationProfiles",
      "x/y",
    ]);
    expect(requestSegments("/authenticationProfiles/", {})).toEqual(["authenticationProfiles"]);
  });

  it("never makes a value span segments, nor lets it escape its position (property)", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (subscriptionId, resourceGroupName, name) => {
        const segments = requestSegments(template, { subscriptionId, resourceGroupName, name });
        expect(segments).toHaveLength(8);
        expect([segments[1], segments[3], segments[7]]).toEqual([subscriptionId, resourceGroupName, name]);
      }),
    );
  });
});

describe("pathSegments and scopePath", () => {
  it("reads '/' as the root and ignores empty segments", () => {
    expect(pathSegments("/")).toEqual([]);
    expect(pathSegments("")).toEqual([]);
    expect(pathSegments("//a///b/")).toEqual(["a", "b"]);
    expect(scopePath([])).toBe("/");
    expect(scopePath(["subscriptions", "x"])).toBe("/subscriptions/x");
  });
});
