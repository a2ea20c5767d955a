import { requestKind } from "../../bench/run-profile";

describe("requestKind (the bench's storage operation counts)", () => {
  it("tells writes, receives, deletes and lock renewals apart, without ids", () => {
    const base = "/devstoreaccount1/twin-events/messages";
    expect(requestKind({ method: "POST", path: `${base}?timeout=30` })).toBe(`POST ${base}`);
    expect(requestKind({ method: "GET", path: `${base}?numofmessages=8&visibilitytimeout=60` })).toBe(
      `GET ${base} (receive)`,
    );
    expect(requestKind({ method: "DELETE", path: `${base}/4f1c-a?popreceipt=AAA%3D` })).toBe(
      `DELETE ${base}/<id> (with pop receipt)`,
    );
    expect(
      requestKind({ method: "PUT", path: `${base}/4f1c-a?popreceipt=AAA%3D&visibilitytimeout=60` }),
    ).toBe(`PUT ${base}/<id> (update: a lock renewal or release)`);
    expect(requestKind({ method: "PUT", path: "/devstoreaccount1/twin-events" })).toBe(
      "PUT /devstoreaccount1/twin-events",
    );
  });
});
