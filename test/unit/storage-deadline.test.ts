import { holdMessageLock } from "../../dev/queue-trigger";
import {
  STORAGE_CALL_DEADLINE_MS,
  storageDeadline,
  wholeMilliseconds,
} from "../../src/store/storage-deadline";

const abortReason = (signal: AbortSignal) =>
  new Promise<unknown>((resolve) =>
    signal.addEventListener("abort", () => resolve(signal.reason), { once: true }),
  );

describe("storageDeadline", () => {
  it("rounds a deadline in any form up to whole milliseconds, never cutting it short", () => {
    for (const ms of [12.5, 0.2, 1.001 * 500, 7, 0]) {
      const whole = wholeMilliseconds(ms);
      expect(Number.isInteger(whole)).toBe(true);
      expect(whole).toBeGreaterThanOrEqual(ms);
      expect(whole - ms).toBeLessThan(1);
    }
    expect(wholeMilliseconds(-5)).toBe(0);
  });

  // How long the abort takes by the wall clock is not asserted: Node counts a timer from the event
  // loop's cached time, which a busy worker lets fall behind performance.now() (a CI run saw a
  // 13 ms timer fire 11.7 ms after it was set), so such a bound tests Node, not this code.
  it("takes what AbortSignal.timeout refuses, and aborts later with a TimeoutError", async () => {
    // AbortSignal.timeout itself throws a RangeError on each of these.
    for (const ms of [12.5, 0.2, -5]) {
      const signal = storageDeadline(ms);
      expect(signal.aborted).toBe(false);
      expect(await abortReason(signal)).toMatchObject({ name: "TimeoutError" });
    }
  });

  it("gives each call a signal of its own, 20 s by default", () => {
    const first = storageDeadline();
    const second = storageDeadline();
    expect(first).not.toBe(second);
    expect(first.aborted).toBe(false);
    expect(STORAGE_CALL_DEADLINE_MS).toBe(20_000);
  });
});

describe("the local trigger's lock", () => {
  it("renews a lock of a fraction of a second too, each renewal with its deadline", async () => {
    // Half of 1.001 s is 500.5 ms: a renewal's deadline is capped there, and must not throw from
    // the renewal timer's callback (which would end the process). Two renewals, so the second is
    // seen to go on from the receipt the first returned; a failed one ends the wait at once.
    const RENEWALS = 2;
    const renewals: { popReceipt: string; abortSignal?: AbortSignal }[] = [];
    let renewedEnough = () => {};
    let renewalFailed: (error: unknown) => void = () => {};
    const settled = new Promise<void>((resolve, reject) => {
      renewedEnough = resolve;
      renewalFailed = reject;
    });
    const queue = {
      updateMessage: async (
        _id: string,
        popReceipt: string,
        _text: unknown,
        _seconds: number,
        options: { abortSignal?: AbortSignal } = {},
      ) => {
        renewals.push({ popReceipt, ...options });
        if (renewals.length === RENEWALS) renewedEnough();
        return { popReceipt: `receipt-${renewals.length}` };
      },
    };
    const lock = holdMessageLock({
      queue: queue as never,
      messageId: "m",
      popReceipt: "receipt-0",
      lockSeconds: 1.001,
      storageDeadlineMs: STORAGE_CALL_DEADLINE_MS,
      onRenewalFailed: renewalFailed,
    });
    await settled.finally(() => lock.stop());
    expect(renewals.map((renewal) => renewal.popReceipt).slice(0, RENEWALS)).toEqual([
      "receipt-0",
      "receipt-1",
    ]);
    expect(renewals.every((renewal) => renewal.abortSignal instanceof AbortSignal)).toBe(true);
    expect(lock.popReceipt).toBe(`receipt-${renewals.length}`);
  });
});
