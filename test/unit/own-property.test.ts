import { setOwnProperty } from "../../src/common/own-property";
import { withoutSystemProperties } from "../../src/store/document-store";

describe("setOwnProperty", () => {
  it("keeps a key named __proto__ a member, as JSON.parse does, and leaves the prototype alone", () => {
    const record: Record<string, unknown> = {};
    setOwnProperty(record, "__proto__", { polluted: true });
    setOwnProperty(record, "constructor", "c");
    expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
    expect(Object.keys(record)).toEqual(["__proto__", "constructor"]);
    expect(JSON.stringify(record)).toBe('{"__proto__":{"polluted":true},"constructor":"c"}');
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });
});

describe("withoutSystemProperties", () => {
  it("copies a stored document's __proto__ member as a member, and drops Cosmos's own fields", () => {
    const stored = JSON.parse('{"id":"a","__proto__":{"x":1},"_rid":"r","_ts":1,"_etag":"e"}');
    const copy = withoutSystemProperties<{ id: string }>(stored);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(JSON.stringify(copy)).toBe('{"id":"a","__proto__":{"x":1},"_etag":"e"}');
  });
});
