import { holdMessageLock } from "../../dev/queue-trigger-lock";
import { STORAGE_CALL_DEADLINE_MS, storageDeadline } from "../../src/store/storage-deadline";

const aborted = (signal: AbortSignal) =>
  new Promise<number>((resolve) => {
    const started = performance.now();
    signal.addEventListener("abort", () => resolve(performance.now() - started), { once: true });
  });

describe("storageDeadline", () => {
  it("takes what is left of a deadline in any form, never aborting before it", async () => {
    // AbortSignal.timeout itself throws a RangeError on each of these.
    for (const ms of [12.5, 0.2]) {
      const waited = await aborted(storageDeadline(ms));
      expect(waited).toBeGreaterThanOrEqual(Math.floor(ms));
    }
    // A deadline already past: aborted at once, not refused.
    expect(await aborted(storageDeadline(-5))).toBeLessThan(1000);
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
    // the renewal timer's callback (which would end the process).
    const renewals: { abortSignal?: AbortSignal }[] = [];
    const queue = {
      updateMessage: async (
        _id: string,
        _receipt: string,
        _text: unknown,
        _seconds: number,
        options = {},
      ) => {
        renewals.push(options);
        return { popReceipt: `receipt-${renewals.length}` };
      },
    };
    const lock = holdMessageLock({
      queue: queue as never,
      messageId: "m",
      popReceipt: "receipt-0",
      lockSeconds: 1.001,
      storageDeadlineMs: STORAGE_CALL_DEADLINE_MS,
      onRenewalFailed: (error) => {
        throw error;
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 1200));
    await lock.stop();
    expect(renewals.length).toBeGreaterThanOrEqual(1);
    expect(renewals.every((options) => options.abortSignal instanceof AbortSignal)).toBe(true);
    expect(lock.popReceipt).toBe(`receipt-${renewals.length}`);
  });
});
