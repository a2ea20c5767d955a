import fc from "fast-check";
import { covers, pathSegments, requestSegments, scopeKeyOf, scopePath } from "../../src/auth/scope";
import { nameKey } from "../../src/common/name-key";

function key(path: string) {
  return scopeKeyOf(pathSegments(path));
}

describe("covers", () => {
  it("covers on segment boundaries only", () => {
    expect(covers(key("/subscriptions/abc"), key("/subscriptions/abc"))).toBe(true);
    expect(covers(key("/subscriptions/abc"), key("/subscriptions/abc/resourceGroups/rg"))).toBe(true);
    expect(covers(key("/subscriptions/abc"), key("/subscriptions/abcd"))).toBe(false);
    expect(covers(key("/subscriptions/abc"), key("/subscriptions/abcd/resourceGroups/rg"))).toBe(false);
    expect(covers(key("/subscriptions/abcd"), key("/subscriptions/abc"))).toBe(false);
    expect(covers(key("/authenticationProfiles/a"), key("/authenticationProfiles/ab"))).toBe(false);
    expect(covers(key("/authenticationProfiles/a"), key("/authenticationProfiles"))).toBe(false);
  });

  it("lets the root cover everything, itself included, and nothing but the root cover the root", () => {
    expect(covers(key("/"), key("/"))).toBe(true);
    expect(covers(key("/"), key("/subscriptions/x/resourceGroups/y"))).toBe(true);
    expect(covers(key("/authenticationProfiles"), key("/"))).toBe(false);
  });

  it("compares segments as name keys: case-insensitive, but the Kelvin sign is not K", () => {
    expect(covers(key("/SUBSCRIPTIONS/ABC"), key("/subscriptions/abc/resourcegroups/RG"))).toBe(true);
    expect(covers(key("/subscriptions/Résumé"), key("/subscriptions/RÉSUMÉ"))).toBe(true);
    expect(covers(key("/subscriptions/k"), key("/subscriptions/\u212A"))).toBe(false);
    expect(covers(key("/subscriptions/\u212A"), key("/subscriptions/K"))).toBe(false);
    expect(covers(key("/subscriptions/ss"), key("/subscriptions/ß"))).toBe(false);
  });

  it("is exactly 'a is a segment prefix of b', compared by name key (property)", () => {
    const segment = fc.string({
      unit: fc.constantFrom("a", "A", "b", "k", "K", "\u212A", "ß", "s", "."),
      minLength: 1,
      maxLength: 3,
    });
    const path = fc.array(segment, { maxLength: 5 });
    fc.assert(
      fc.property(path, path, (a, b) => {
        const prefix =
          a.length <= b.length &&
          a.every((segmentOfA, index) => nameKey(segmentOfA) === nameKey(b[index] as string));
        expect(covers(scopeKeyOf(a), scopeKeyOf(b))).toBe(prefix);
      }),
      { numRuns: 3000 },
    );
  });

  it("covers every extension of a scope, and is transitive (property)", () => {
    const path = fc.array(fc.string({ minLength: 1, maxLength: 4 }), { maxLength: 4 });
    fc.assert(
      fc.property(path, path, path, (a, b, c) => {
        const ab = scopeKeyOf([...a, ...b]);
        expect(covers(scopeKeyOf(a), ab)).toBe(true);
        expect(covers(scopeKeyOf(a), scopeKeyOf([...a, ...b, ...c]))).toBe(true);
        if (covers(scopeKeyOf(a), scopeKeyOf(b)) && covers(scopeKeyOf(b), scopeKeyOf(c)))
          expect(covers(scopeKeyOf(a), scopeKeyOf(c))).toBe(true);
      }),
    );
  });
});

describe("requestSegments", () => {
  const template = "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/X.Y/t/{name}";

  it("puts each parameter's value in one segment, whatever it holds", () => {
    const segments = requestSegments(template, { subscriptionId: "s", resourceGroupName: "a/b", name: ".." });
    expect(segments).toEqual(["subscriptions", "s", "resourceGroups", "a/b", "providers", "X.Y", "t", ".."]);
    // 'a/b' is one segment: a grant on resource group 'a' does not cover it, nor does '..' climb out.
    expect(covers(key("/subscriptions/s/resourceGroups/a"), scopeKeyOf(segments))).toBe(false);
    expect(covers(key("/subscriptions/s/resourceGroups/a/b"), scopeKeyOf(segments))).toBe(false);
    const climbing = requestSegments(template, { subscriptionId: "..", resourceGroupName: "..", name: "x" });
    expect(covers(key("/subscriptions/other"), scopeKeyOf(climbing))).toBe(false);
    expect(covers(scopeKeyOf(["subscriptions", ".."]), scopeKeyOf(climbing))).toBe(true);
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
