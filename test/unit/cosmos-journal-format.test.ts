import fc from "fast-check";
import {
  CorruptJournalError,
  decodeJournal,
  encodeRecord,
  type StoreChange,
} from "../../dev/stand-ins/cosmos-journal-format";

// The journal's record format: whole records come back as written; a record cut short by a crash
// (anywhere in it) is left out, never half applied; damage with whole records after it is refused.

const doc = (id: string, extra: Record<string, unknown> = {}): StoreChange => ({
  t: "set",
  k: "doc",
  db: "db",
  c: "c",
  d: { id, _rid: `rid-${id}`, ...extra },
  n: 1,
});

const isPlainKey = (key: string) => !["__proto__", "id", "_rid"].includes(key);

const record = (...changes: StoreChange[]) => encodeRecord(changes.map((change) => JSON.stringify(change)));

it("reads back every change of every record, in order", () => {
  const first = [doc("a"), doc("b", { text: "line\nbreak ✓ \u2028" })];
  const second: StoreChange[] = [{ t: "del", k: "doc", db: "db", c: "c", id: "a", p: "a" }];
  const data = Buffer.concat([record(...first), record(...second)]);
  const decoded = decodeJournal(data);
  expect(decoded.changes).toEqual([...first, ...second]);
  expect(decoded.records).toBe(2);
  expect(decoded.validBytes).toBe(data.length);
});

it("reads an empty journal as no changes", () => {
  expect(decodeJournal(Buffer.alloc(0))).toEqual({ changes: [], records: 0, validBytes: 0 });
});

it("leaves out a last record cut at any byte, keeping every whole one before it", () => {
  const whole = Buffer.concat([record(doc("a")), record(doc("b"), doc("c"))]);
  const firstLength = record(doc("a")).length;
  for (let cut = 0; cut < whole.length; cut++) {
    const decoded = decodeJournal(whole.subarray(0, cut));
    const expected = cut < firstLength ? [] : [doc("a")];
    expect(decoded.changes).toEqual(expected);
    expect(decoded.validBytes).toBe(cut < firstLength ? 0 : firstLength);
  }
});

it("leaves out a last record whose bytes changed (its checksum fails), and zeros after a crash", () => {
  const first = record(doc("a"));
  const last = Buffer.from(record(doc("b")));
  last[20] = (last[20] as number) ^ 0x01;
  expect(decodeJournal(Buffer.concat([first, last])).changes).toEqual([doc("a")]);
  expect(decodeJournal(Buffer.concat([first, Buffer.alloc(4096)])).changes).toEqual([doc("a")]);
});

it("refuses a damaged record that has whole records after it", () => {
  const damaged = Buffer.from(record(doc("a")));
  damaged[15] = (damaged[15] as number) ^ 0x20;
  expect(() => decodeJournal(Buffer.concat([damaged, record(doc("b"))]))).toThrow(CorruptJournalError);
  expect(() =>
    decodeJournal(Buffer.concat([record(doc("a")), Buffer.from("garbage\n"), record(doc("b"))])),
  ).toThrow(/byte \d+ is followed by whole records/);
});

it("refuses nothing that only looks like a record: a valid checksum over JSON that is not a list", () => {
  const body = Buffer.from('{"t":"set"}');
  const { crc32 } = require("node:zlib") as typeof import("node:zlib");
  const line = Buffer.from(`${crc32(body).toString(16).padStart(8, "0")} ${body.toString()}\n`);
  expect(decodeJournal(line).records).toBe(0);
});

it("round-trips any JSON documents, and any cut of them yields a prefix of the records", () => {
  fc.assert(
    fc.property(
      fc.array(fc.array(fc.dictionary(fc.string().filter(isPlainKey), fc.jsonValue()), { maxLength: 4 }), {
        maxLength: 5,
      }),
      fc.nat(),
      (records, cutSeed) => {
        const batches = records.map((documents) =>
          documents.map((extra, index) => doc(`d${index}`, JSON.parse(JSON.stringify(extra)))),
        );
        const data = Buffer.concat(batches.map((changes) => record(...changes)));
        expect(decodeJournal(data).changes).toEqual(batches.flat());
        const cut = data.length === 0 ? 0 : cutSeed % data.length;
        const partial = decodeJournal(data.subarray(0, cut));
        expect(batches.slice(0, partial.records).flat()).toEqual(partial.changes);
      },
    ),
  );
});
