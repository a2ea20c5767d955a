import { startDelayRelay } from "../../bench/delay-relay";
import { ServiceUnavailable } from "../../src/common/errors";
import { DeadLetterRedelivery } from "../../src/delivery/dead-letter-redelivery";
import type { DeliveryQueues } from "../../src/delivery/delivery-queues";
import { STORAGE_CALL_DEADLINE_MS } from "../../src/store/storage-deadline";
import { DEAD_LETTER_INSTANCE, deadLetterEndpoint, sasUrlThrough } from "../support/delivery-kit";
import { startPausableRelay } from "../support/pausable-relay";
import { deadLetters, redeliveryRecording } from "../support/redelivery-kit";
import { timed } from "../support/timed";

// Every storage call of a redelivery has a deadline. It lists an endpoint's dead-letter container a
// page at a time, each page with a deadline of its own: a store that stops answering ends the call
// (503, so the caller repeats it later) instead of holding it as long as the connection stays open,
// and a listing that is only long, slower in all than one deadline, still reaches its end. A claim
// the store does not answer ends the call (503) at the same deadline. Real Azurite, behind relays.

jest.setTimeout(60_000);

/**
 * How long a store that stops answering stays silent before it passes on what it held: half the
 * service's own storage deadline, so that a call that got through would show that deadline was
 * not the one that ended it (its redelivery's, a fraction of this, fires first whatever the
 * machine's load: timers fire in the order they are due).
 */
const SILENT_MS = STORAGE_CALL_DEADLINE_MS / 2;

it("a listing that gets no answer ends with 503 at its deadline, and the next call redelivers once the store answers", async () => {
  const deadlineMs = 1500;
  const ids = ["a", "b", "c"];
  const { sasUrl, marks } = await deadLetters(ids);
  const relay = await startPausableRelay(Number(new URL(sasUrl).port));
  try {
    const endpoint = deadLetterEndpoint(sasUrlThrough(sasUrl, relay.port));
    const { requeued, redelivery } = redeliveryRecording(marks, { deadlineMs });

    relay.pause();
    const answersAgain = setTimeout(() => relay.resume(), SILENT_MS);
    const { ms, error } = await timed(redelivery.redeliver(DEAD_LETTER_INSTANCE, endpoint, {}));
    clearTimeout(answersAgain);
    // Ended by the redelivery's deadline while the store was silent: with the service's own 20 s
    // (or none) the listing would have been answered at SILENT_MS, and everything requeued.
    expect(error).toBeInstanceOf(ServiceUnavailable);
    expect(ms).toBeGreaterThanOrEqual(deadlineMs - 100);
    expect(requeued).toEqual([]);

    relay.resume();
    const counts = await redelivery.redeliver(DEAD_LETTER_INSTANCE, endpoint, {});
    expect(counts).toEqual({ requeued: ids.length, skipped: 0, failed: 0 });
    expect(requeued.sort()).toEqual(ids);
  } finally {
    relay.resume();
    await relay.close();
  }
});

it("a listing of several pages, slower in all than one deadline, is listed to its end", async () => {
  // Every request costs one round trip of the relay: four pages of two take 2.4 s at least, more
  // than one deadline of 2 s, while each page, and each other call, takes well within it.
  const deadlineMs = 2000;
  const roundTripMs = 600;
  const ids = ["p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"];
  const { sasUrl, marks } = await deadLetters(ids);
  const relay = await startDelayRelay(Number(new URL(sasUrl).port), roundTripMs);
  try {
    const endpoint = deadLetterEndpoint(sasUrlThrough(sasUrl, relay.port));
    const { requeued, redelivery } = redeliveryRecording(marks, { deadlineMs, pageSize: 2 });

    const started = performance.now();
    const counts = await redelivery.redeliver(DEAD_LETTER_INSTANCE, endpoint, {});
    expect(performance.now() - started).toBeGreaterThan(deadlineMs);
    expect(counts).toEqual({ requeued: ids.length, skipped: 0, failed: 0 });
    expect(requeued.sort()).toEqual(ids);
  } finally {
    await relay.close();
  }
});

it("a store that stops answering between two pages of the listing: the first call ends with 503 after requeuing the first page, the next requeues the rest, none twice", async () => {
  const deadlineMs = 1500;
  // Eight a page: the first page fills one batch (PARALLEL), which is requeued and marked before
  // the second page is asked for; the relay holds that request (a listing with a marker) unanswered.
  const ids = Array.from({ length: 10 }, (_, index) => `m${String(index).padStart(2, "0")}`);
  const { sasUrl, marks } = await deadLetters(ids);
  const secondPage = (chunk: Buffer) => {
    const text = chunk.toString("latin1");
    return text.includes("comp=list") && text.includes("marker=");
  };
  const relay = await startPausableRelay(Number(new URL(sasUrl).port), secondPage);
  try {
    const endpoint = deadLetterEndpoint(sasUrlThrough(sasUrl, relay.port));
    const { requeued, redelivery } = redeliveryRecording(marks, { deadlineMs, pageSize: 8 });

    const { error } = await timed(redelivery.redeliver(DEAD_LETTER_INSTANCE, endpoint, {}));
    expect(error).toBeInstanceOf(ServiceUnavailable);
    expect([...requeued].sort()).toEqual(ids.slice(0, 8));

    relay.resume();
    const counts = await redelivery.redeliver(DEAD_LETTER_INSTANCE, endpoint, {});
    expect(counts).toEqual({ requeued: 2, skipped: 8, failed: 0 });
    expect([...requeued].sort()).toEqual(ids);
  } finally {
    relay.resume();
    await relay.close();
  }
});

it("a claim that gets no answer ends the call with 503 at the redelivery's deadline, and the next call takes it up", async () => {
  const deadlineMs = 1500;
  const ids = ["c1", "c2", "c3"];
  const { sasUrl, marks } = await deadLetters(ids);
  // The first metadata write through the relay is a claim: from there on the store answers
  // nothing for SILENT_MS.
  let answersAgain: NodeJS.Timeout | undefined;
  const claimWrite = (chunk: Buffer) => {
    if (!chunk.toString("latin1").includes("comp=metadata")) return false;
    answersAgain = setTimeout(() => relay.resume(), SILENT_MS);
    return true;
  };
  const relay = await startPausableRelay(Number(new URL(sasUrl).port), claimWrite);
  try {
    const endpoint = deadLetterEndpoint(sasUrlThrough(sasUrl, relay.port));
    const { requeued, redelivery } = redeliveryRecording(marks, { deadlineMs });

    const { ms, error } = await timed(redelivery.redeliver(DEAD_LETTER_INSTANCE, endpoint, {}));
    clearTimeout(answersAgain);
    // Ended by the redelivery's deadline while the store was silent: with the service's own 20 s
    // (or none) the claims would have been answered at SILENT_MS, and the dead letters requeued.
    expect(error).toBeInstanceOf(ServiceUnavailable);
    expect((error as Error).message).toMatch(
      /did not answer while the dead letters were being (claimed|read)/,
    );
    expect(requeued).toEqual([]);
    expect(ms).toBeGreaterThanOrEqual(deadlineMs - 100);

    // Once the store answers, each is requeued, or skipped while an abandoned claim that landed
    // late is younger than its 5 minutes (then taken again): none fails, none is requeued twice.
    relay.resume();
    const again = await redelivery.redeliver(DEAD_LETTER_INSTANCE, endpoint, {});
    expect(again.failed).toBe(0);
    expect(again.requeued + again.skipped).toBe(ids.length);
    expect(new Set(requeued).size).toBe(requeued.length);
    expect(requeued.every((id) => ids.includes(id))).toBe(true);
  } finally {
    clearTimeout(answersAgain);
    relay.resume();
    await relay.close();
  }
});

it("two redeliveries paging through one container at once requeue each dead letter exactly once", async () => {
  // Small pages, so the two calls' listings and claims interleave page by page.
  const ids = Array.from({ length: 12 }, (_, index) => `x${String(index).padStart(2, "0")}`);
  const { sasUrl, marks } = await deadLetters(ids);
  const endpoint = deadLetterEndpoint(sasUrl);
  const first = redeliveryRecording(marks, { pageSize: 3 });
  const second = redeliveryRecording(marks, { pageSize: 2 });

  const counts = await Promise.all([
    first.redelivery.redeliver(DEAD_LETTER_INSTANCE, endpoint, {}),
    second.redelivery.redeliver(DEAD_LETTER_INSTANCE, endpoint, {}),
  ]);

  const requeued = [...first.requeued, ...second.requeued].sort();
  expect(requeued).toEqual(ids);
  expect(counts.map((count) => count.failed)).toEqual([0, 0]);
  expect(counts[0].requeued + counts[1].requeued).toBe(ids.length);
  expect(counts[0].requeued + counts[0].skipped).toBe(ids.length);
  expect(counts[1].requeued + counts[1].skipped).toBe(ids.length);
});

it("a call begins no dead letter after its own deadline: it answers 503 saying how far it got, and the calls after it go on, each dead letter once", async () => {
  // Each storage call costs a round trip of 300 ms: a batch of 8 takes about a second, past the
  // call's deadline of one second, so no call gets through all 24.
  const ids = Array.from({ length: 24 }, (_, index) => `d${String(index).padStart(2, "0")}`);
  const { sasUrl, marks } = await deadLetters(ids);
  const relay = await startDelayRelay(Number(new URL(sasUrl).port), 300);
  try {
    const endpoint = deadLetterEndpoint(sasUrlThrough(sasUrl, relay.port));
    const { requeued, redelivery } = redeliveryRecording(marks, { callDeadlineMs: 1000 });

    const { error } = await timed(redelivery.redeliver(DEAD_LETTER_INSTANCE, endpoint, {}));
    expect(error).toBeInstanceOf(ServiceUnavailable);
    expect((error as ServiceUnavailable).message).toMatch(
      new RegExp(`reached its deadline .* requeued ${requeued.length} dead letters`),
    );
    expect(requeued.length).toBeGreaterThan(0);
    expect(requeued.length).toBeLessThan(ids.length);

    let calls = 1;
    for (;;) {
      calls++;
      const { error: again } = await timed(redelivery.redeliver(DEAD_LETTER_INSTANCE, endpoint, {}));
      if (again === undefined) break;
      expect(again).toBeInstanceOf(ServiceUnavailable);
      expect(calls).toBeLessThan(10);
    }
    expect([...requeued].sort()).toEqual(ids);
  } finally {
    await relay.close();
  }
});

describe("a store that stalls while requeued dead letters are marked", () => {
  // A mark is tried for twice the storage deadline (2 s here) after its event was queued.
  const deadlineMs = 1000;
  const ids = ["k1", "k2", "k3", "k4", "k5", "k6"];

  /**
   * A redelivery whose store stops answering at the first mark, for `stallMs` or (undefined) for
   * good: then the relay is closed, what it holds dropped, when the call is over. Then, on a clock
   * moved past the claims' 5 minutes, a second call straight to the store.
   */
  async function stalledAtFirstMark(stallMs?: number) {
    const { sasUrl, marks } = await deadLetters(ids);
    const firstMark = (chunk: Buffer) => chunk.toString("latin1").includes("x-ms-meta-redelivered:");
    const relay = await startPausableRelay(Number(new URL(sasUrl).port), firstMark);
    let skew = 0;
    const requeued: string[] = [];
    const queues: Pick<DeliveryQueues, "scheduleRetry"> = {
      scheduleRetry: async (_message, events) => {
        requeued.push(...events.map((event) => event.id));
      },
    };
    const redelivery = new DeadLetterRedelivery(queues, marks, () => new Date(Date.now() + skew), {
      deadlineMs,
    });
    const resumed = stallMs === undefined ? undefined : setTimeout(() => relay.resume(), stallMs);
    const stalled = deadLetterEndpoint(sasUrlThrough(sasUrl, relay.port));
    const first = await timed(redelivery.redeliver(DEAD_LETTER_INSTANCE, stalled, {}));
    clearTimeout(resumed);
    await relay.close();
    const afterFirst = [...requeued];
    skew = 6 * 60_000;
    const second = await redelivery.redeliver(DEAD_LETTER_INSTANCE, deadLetterEndpoint(sasUrl), {});
    return { first, afterFirst, second, requeued };
  }

  it("a stall shorter than that: every mark lands, and a call after the claims lapse requeues none again", async () => {
    const { afterFirst, second, requeued } = await stalledAtFirstMark(1500);
    expect(afterFirst.length).toBeGreaterThan(0);
    // What the first call left, the second requeues; nothing twice.
    expect(second.requeued).toBe(ids.length - afterFirst.length);
    expect([...requeued].sort()).toEqual(ids);
  });

  it("the bound: a stall longer than that leaves the marks tried meanwhile unmarked, and only those are requeued a second time once their claims lapse", async () => {
    const { first, afterFirst, second, requeued } = await stalledAtFirstMark();
    expect(first.error).toBeInstanceOf(ServiceUnavailable);
    const twice = requeued.filter((id, index) => requeued.indexOf(id) !== index);
    expect(twice.length).toBeGreaterThan(0);
    // The answer told of them.
    expect((first.error as Error).message).toMatch(
      new RegExp(`${twice.length} of them were not confirmed marked redelivered`),
    );
    // Each of them at most twice, and only ones the first call requeued.
    expect(new Set(twice).size).toBe(twice.length);
    expect(twice.every((id) => afterFirst.includes(id))).toBe(true);
    expect(second.requeued).toBe(ids.length - afterFirst.length + twice.length);
    expect([...new Set(requeued)].sort()).toEqual(ids);
  });
});
