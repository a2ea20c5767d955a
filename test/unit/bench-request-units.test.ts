import { pointReadRu, requestUnits, writeRu } from "../../bench/request-units";

// The published table (learn.microsoft.com/azure/cosmos-db/understand-request-unit-consumption)
// at its own rows, between them, under its first row, and per kind of request.
const DOCS = "127.0.0.1:8081/dbs/d/colls/profiles/docs";

it("prices a point read and a write at the table's rows, and interpolates between them", () => {
  expect(pointReadRu(1024)).toBe(1);
  expect(writeRu(1024)).toBe(4.95);
  expect(writeRu(64 * 1024)).toBe(22.67);
  expect(pointReadRu(24 * 1024)).toBeCloseTo((1.67 + 2.19) / 2, 5);
});

it("prices a document under 1 KB as 1 KB, and a 404 as a 1 KB read", () => {
  expect(pointReadRu(200)).toBe(1);
  expect(writeRu(10)).toBe(4.95);
  expect(requestUnits(`GET ${DOCS}/missing`, { status: 404, bytes: 300 })).toBe(1);
});

it("prices each kind of request: a batch as its two writes, a query as a read of what it returns, plans and metadata at 0", () => {
  expect(requestUnits(`PUT ${DOCS}/x`, { status: 200, bytes: 2048 })).toBe(6.29);
  expect(requestUnits(`POST ${DOCS}`, { status: 200, bytes: 4096, cosmos: "batch" })).toBe(2 * 6.29);
  expect(requestUnits(`POST ${DOCS}`, { status: 200, bytes: 8192, cosmos: "query" })).toBe(1.33);
  expect(requestUnits(`POST ${DOCS}`, { status: 200, bytes: 8192, cosmos: "query plan" })).toBe(0);
  expect(requestUnits("GET 127.0.0.1:8081/", { status: 200, bytes: 900 })).toBe(0);
  expect(requestUnits("GET 127.0.0.1:8081/dbs/d/colls/profiles", { status: 200, bytes: 900 })).toBe(0);
});
