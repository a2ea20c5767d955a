import fc from "fast-check";
import { billedMs, billedPeriods, gbSeconds } from "../../bench/flex-billing";

/**
 * Flex Consumption's on-demand billing as bench/flex-billing.ts reads Microsoft's rules: an
 * instance is billed while any execution runs, a period at least 1,000 ms, past that rounded up to
 * the next 100 ms; never more than its wall-clock time from the first start to the last billed end.
 */
describe("Flex Consumption billed activity", () => {
  it("bills a lone short execution the minimum 1,000 ms, and a longer one rounded up to 100 ms", () => {
    expect(billedMs([{ start: 0, end: 12 }])).toBe(1000);
    expect(billedMs([{ start: 0, end: 1001 }])).toBe(1100);
    expect(billedMs([{ start: 0, end: 1100 }])).toBe(1100);
  });

  it("bills overlapping executions once, and one starting within the minimum as part of it", () => {
    expect(
      billedMs([
        { start: 0, end: 300 },
        { start: 100, end: 400 },
      ]),
    ).toBe(1000);
    expect(
      billedMs([
        { start: 0, end: 10 },
        { start: 900, end: 1300 },
      ]),
    ).toBe(1300);
    // Past the period, a new one with its own minimum.
    expect(
      billedPeriods([
        { start: 0, end: 10 },
        { start: 1500, end: 1510 },
      ]),
    ).toEqual([
      [0, 1000],
      [1500, 2500],
    ]);
  });

  it("bills a steady load by its periods: each a second or more, past that the activity rounded up", () => {
    // Every 250 ms an execution of 5 ms: five fall into each first second, the fifth ends it at
    // 1,005 ms (billed 1,100), and the next begins a new period at 1,250 ms.
    const steady = Array.from({ length: 100 }, (_, index) => ({ start: index * 250, end: index * 250 + 5 }));
    expect(billedMs(steady)).toBe(20 * 1100);
    // Busy throughout: billed throughout.
    const busy = Array.from({ length: 100 }, (_, index) => ({ start: index * 10, end: index * 10 + 12 }));
    expect(billedMs(busy)).toBe(1100);
  });

  it("never bills less than the executions ran, nor more than the wall clock to the last minimum", () => {
    const execution = fc
      .tuple(fc.integer({ min: 0, max: 20_000 }), fc.integer({ min: 0, max: 3000 }))
      .map(([start, length]) => ({ start, end: start + length }));
    fc.assert(
      fc.property(fc.array(execution, { minLength: 1, maxLength: 40 }), (executions) => {
        const billed = billedMs(executions);
        const first = Math.min(...executions.map((each) => each.start));
        const last = Math.max(...executions.map((each) => Math.max(each.end, each.start + 1000)));
        expect(billed).toBeLessThanOrEqual(last - first + 100);
        const longest = Math.max(...executions.map((each) => each.end - each.start));
        expect(billed).toBeGreaterThanOrEqual(Math.max(1000, longest));
        const periods = billedPeriods(executions);
        for (let i = 1; i < periods.length; i++)
          expect((periods[i] as [number, number])[0]).toBeGreaterThanOrEqual(
            (periods[i - 1] as [number, number])[1],
          );
      }),
    );
  });

  it("counts GB-s of instance memory at 1,024 MB a GB", () => {
    expect(gbSeconds(1000, 512)).toBe(0.5);
    expect(gbSeconds(2000, 2048)).toBe(4);
  });
});
