import { PreconditionFailed } from "../../src/common/errors";
import { checkPreconditions, isNotModified, normalizeEtag } from "../../src/common/preconditions";

describe("preconditions", () => {
  it("compares tags without quotes or weakness markers", () => {
    expect(normalizeEtag('W/"abc"')).toBe("abc");
    expect(normalizeEtag('"abc"')).toBe("abc");
    expect(normalizeEtag("abc")).toBe("abc");
  });

  it("passes If-Match with the current tag, quoted or not, or in a list", () => {
    expect(() => checkPreconditions({ ifMatch: ['"v1"'] }, "v1")).not.toThrow();
    expect(() => checkPreconditions({ ifMatch: ["v0", "v1"] }, '"v1"')).not.toThrow();
  });

  it("fails If-Match with another tag, or any tag when the resource is absent", () => {
    expect(() => checkPreconditions({ ifMatch: ['"v0"'] }, "v1")).toThrow(PreconditionFailed);
    expect(() => checkPreconditions({ ifMatch: ["*"] }, undefined)).toThrow(PreconditionFailed);
  });

  it("never matches a weak tag in If-Match (strong comparison), but does in If-None-Match (weak)", () => {
    expect(() => checkPreconditions({ ifMatch: ['W/"v1"'] }, '"v1"')).toThrow(/weak tag/);
    expect(() => checkPreconditions({ ifMatch: ['W/"v1"', '"v1"'] }, '"v1"')).not.toThrow();
    expect(() => checkPreconditions({ ifNoneMatch: ['W/"v1"'] }, '"v1"')).toThrow(PreconditionFailed);
    expect(isNotModified(['W/"v1"'], '"v1"')).toBe(true);
  });

  it("fails If-None-Match: * when the resource exists, passes when absent", () => {
    expect(() => checkPreconditions({ ifNoneMatch: ["*"] }, "v1")).toThrow(PreconditionFailed);
    expect(() => checkPreconditions({ ifNoneMatch: ["*"] }, undefined)).not.toThrow();
  });

  it("answers not-modified only for the current tag", () => {
    expect(isNotModified(['"v1"'], "v1")).toBe(true);
    expect(isNotModified(['"v0"'], "v1")).toBe(false);
    expect(isNotModified(undefined, "v1")).toBe(false);
  });
});
