import { isAuthorized } from "../../dev/key-check";

const keys = { functionKey: "function-key", masterKey: "master-key" };

describe("isAuthorized", () => {
  it("lets anyone call an anonymous route", () => {
    expect(isAuthorized("anonymous", null, keys)).toBe(true);
  });

  it("takes the function key or the master key on a function route", () => {
    expect(isAuthorized("function", "function-key", keys)).toBe(true);
    expect(isAuthorized("function", "master-key", keys)).toBe(true);
    expect(isAuthorized("function", "wrong", keys)).toBe(false);
    expect(isAuthorized("function", null, keys)).toBe(false);
    expect(isAuthorized("function", "", keys)).toBe(false);
  });

  it("takes only the master key on an admin route", () => {
    expect(isAuthorized("admin", "master-key", keys)).toBe(true);
    expect(isAuthorized("admin", "function-key", keys)).toBe(false);
  });
});
