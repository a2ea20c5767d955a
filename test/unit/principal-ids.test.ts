import fc from "fast-check";
import {
  DEVELOPER_OBJECT_ID,
  isGuid,
  LOCAL_APP_ID_URI,
  LOCAL_CLIENT_ID,
  LOCAL_TENANT_ID,
  principalClientId,
  principalObjectId,
} from "../../dev/stand-ins/openid-issuer";

// The local principals' ids: role assignments made for a name must keep naming the same principal
// on every machine and across versions, and two names must never share an id.

const V4_GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const names = fc.string({ minLength: 1, unit: "grapheme" }).filter((name) => name.trim() !== "");

it("pins the developer's object id and the local tenant and audience, as the docs name them", () => {
  // Changing the derivation would orphan every local role assignment.
  expect(DEVELOPER_OBJECT_ID).toBe("54ba1103-395e-45f6-985f-db426ccf6c0b");
  expect(LOCAL_TENANT_ID).toBe("00000000-0000-4000-8000-00000000a11d");
  expect(LOCAL_APP_ID_URI).toBe(`api://${LOCAL_CLIENT_ID}`);
  expect(LOCAL_CLIENT_ID).toBe("00000000-0000-4000-8000-0000000a0d1e");
});

it("gives each name a stable v4 GUID object id, not its client id nor a fixed id", () => {
  fc.assert(
    fc.property(names, (name) => {
      const id = principalObjectId(name);
      expect(id).toMatch(V4_GUID);
      expect(isGuid(id)).toBe(true);
      expect(principalObjectId(name)).toBe(id);
      expect(principalClientId(name)).toMatch(V4_GUID);
      expect([principalClientId(name), LOCAL_TENANT_ID, LOCAL_CLIENT_ID]).not.toContain(id);
    }),
  );
});

it("gives different names different ids, also names that differ by case, spacing or normalization", () => {
  fc.assert(
    fc.property(names, names, (first, second) => {
      fc.pre(first !== second);
      expect(principalObjectId(first)).not.toBe(principalObjectId(second));
    }),
  );
  const spellings = ["alice", "Alice", "ALICE", "alice ", " alice", "ali\u0063e\u0301", "alicé"];
  expect(new Set(spellings.map(principalObjectId)).size).toBe(spellings.length);
});

it.each(["", " ", "\t\n"])("refuses the empty name %j", (name) => {
  expect(() => principalObjectId(name)).toThrow("A principal name must not be empty.");
  expect(() => principalClientId(name)).toThrow("A principal name must not be empty.");
});
