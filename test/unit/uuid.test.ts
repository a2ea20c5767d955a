import { randomId } from "../../src/common/uuid";

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("randomId", () => {
  it("makes version-4 UUIDs in lower case, as crypto.randomUUID does, across many batches", () => {
    const ids = Array.from({ length: 10_000 }, () => randomId());
    for (const id of ids) expect(id).toMatch(V4);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("uses every hex digit in every random position (no position stuck, none biased much)", () => {
    const ids = Array.from({ length: 20_000 }, () => randomId());
    for (let position = 0; position < 36; position++) {
      if ([8, 13, 14, 18, 19, 23].includes(position)) continue; // dashes, the version, the variant
      const counts = new Map<string, number>();
      for (const id of ids) counts.set(id[position] as string, (counts.get(id[position] as string) ?? 0) + 1);
      expect(counts.size).toBe(16);
      // 1,250 expected each: far outside this only when a digit is broken.
      for (const count of counts.values()) expect(count).toBeGreaterThan(1000);
    }
    const variants = new Set(ids.map((id) => id[19]));
    expect([...variants].sort()).toEqual(["8", "9", "a", "b"]);
  });

  it("gives each caller a string of its own, not a view that later ids change", () => {
    const first = randomId();
    const copy = `${first}`;
    for (let i = 0; i < 300; i++) randomId();
    expect(first).toBe(copy);
  });
});
