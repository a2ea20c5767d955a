import { ServiceUnavailable } from "../../src/common/errors";
import { DeadLetterRedelivery } from "../../src/delivery/dead-letter-redelivery";
import type { DeliveryQueues } from "../../src/delivery/delivery-queues";
import { DEAD_LETTER_INSTANCE, deadLetterEndpoint, sasUrlThrough } from "../support/delivery-kit";
import { startPausableRelay } from "../support/pausable-relay";
import { deadLetters, redeliveryRecording } from "../support/redelivery-kit";
import { timed } from "../support/timed";

// Every storage call of a redelivery has a deadline. It lists an endpoint's dead-letter container a
// page at a time, each page with a deadline of its own: a store that stops answering ends the call
// (503, so the caller repeats it later) instead of holding it as long as the connection stays open,
// and a listing that is only long, slower in all than one deadline, still reaches its end. A claim
// the store does not answer ends the call (503) at the same deadline. Real Azurite, behind relays.
//
// No verdict here rests on which of two timers fires first: a store that stops answering stays
// silent until the call has ended and the relay has seen the client give the request up, so a
// redelivery without its deadline hangs (and the test fails) rather than being answered late; and
// slowness is put where no storage call is running (a slow queue), timed from inside the call.

jest.setTimeout(60_000);

/** Settles once `ms` have passed by the clock the redelivery reads (Date.now), from now. */
async function afterMs(ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) await new Promise((resolve) => setTimeout(resolve, until - Date.now()));
}

/**
 * A queue slow by `ms` at the first requeue of each call (the requeues beside it wait with it),
 * timed from that requeue: after whatever the call began before it. `nextCall` before each call.
 */
function slowFirstRequeue(ms: number) {
  let wait: Promise<void> | undefined;
  return {
    requeueing: () => {
      wait ??= afterMs(ms);
      return wait;
    },
    nextCall: () => {
      wait = undefined;
    },
  };
}

it("a listing that gets no answer ends with 503 at its deadline, and the next call redelivers once the store answers", async () => {
  const deadlineMs = 1500;
  const ids = ["a", "b", "c"];
  const { sasUrl, marks } = await deadLetters(ids);
  const relay = await startPausableRelay(Number(new URL(sasUrl).port));
  try {
    const endpoint = deadLetterEndpoint(sasUrlThrough(sasUrl, relay.port));
    const { requeued, redelivery } = redeliveryRecording(marks, { deadlineMs });

    relay.pause();
    const { ms, error } = await timed(redelivery.redeliver(DEAD_LETTER_INSTANCE, endpoint, {}));
    // Ended by the client giving up the listing, the store silent all along, no earlier than the
    // deadline: without one the call would still be waiting.
    await relay.untilGivenUp();
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
  // Two pages of eight: the first page's requeues take one deadline (timed from the first, after the
  // listing began), so the second page is asked for more than one deadline after the first was.
  const deadlineMs = 2000;
  const ids = Array.from({ length: 10 }, (_, index) => `p${String(index).padStart(2, "0")}`);
  const { sasUrl, marks } = await deadLetters(ids);
  const relay = await startPausableRelay(Number(new URL(sasUrl).port));
  try {
    const endpoint = deadLetterEndpoint(sasUrlThrough(sasUrl, relay.port));
    const slowQueue = slowFirstRequeue(deadlineMs);
    const { requeued, redelivery } = redeliveryRecording(
      marks,
      { deadlineMs, pageSize: 8 },
      slowQueue.requeueing,
    );

    const { ms, error } = await timed(redelivery.redeliver(DEAD_LETTER_INSTANCE, endpoint, {}));
    expect(error).toBeUndefined();
    expect(relay.requestLines().filter((line) => line.includes("comp=list"))).toHaveLength(2);
    expect(ms).toBeGreaterThan(deadlineMs);
    expect([...requeued].sort()).toEqual(ids);
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
    await relay.untilGivenUp();
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
  // nothing, until the call has ended.
  const claimWrite = (chunk: Buffer) => chunk.toString("latin1").includes("comp=metadata");
  const relay = await startPausableRelay(Number(new URL(sasUrl).port), claimWrite);
  try {
    const endpoint = deadLetterEndpoint(sasUrlThrough(sasUrl, relay.port));
    const { requeued, redelivery } = redeliveryRecording(marks, { deadlineMs });

    const { ms, error } = await timed(redelivery.redeliver(DEAD_LETTER_INSTANCE, endpoint, {}));
    // Ended by the client giving the claims up, the store silent all along.
    await relay.untilGivenUp();
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
  // The first requeue of each call takes the call's whole deadline, so a call that began a batch
  // begins nothing after it: no call gets through all 24, and each gets through some.
  const callDeadlineMs = 1000;
  const ids = Array.from({ length: 24 }, (_, index) => `d${String(index).padStart(2, "0")}`);
  const { sasUrl, marks } = await deadLetters(ids);
  const endpoint = deadLetterEndpoint(sasUrl);
  const slowQueue = slowFirstRequeue(callDeadlineMs);
  const { requeued, redelivery } = redeliveryRecording(marks, { callDeadlineMs }, slowQueue.requeueing);

  const { error } = await timed(redelivery.redeliver(DEAD_LETTER_INSTANCE, endpoint, {}));
  expect(error).toBeInstanceOf(ServiceUnavailable);
  expect((error as ServiceUnavailable).message).toMatch(
    new RegExp(`reached its deadline .* requeued ${requeued.length} dead letters`),
  );
  expect(requeued.length).toBeGreaterThan(0);
  expect(requeued.length).toBeLessThan(ids.length);

  // Each call requeues at least one, so as many calls as there are dead letters are more than enough.
  for (let calls = 2; ; calls++) {
    expect(calls).toBeLessThanOrEqual(ids.length);
    const before = requeued.length;
    slowQueue.nextCall();
    const { error: again } = await timed(redelivery.redeliver(DEAD_LETTER_INSTANCE, endpoint, {}));
    expect(requeued.length).toBeGreaterThan(before);
    if (again === undefined) break;
    expect(again).toBeInstanceOf(ServiceUnavailable);
  }
  expect([...requeued].sort()).toEqual(ids);
});

describe("a store that stalls while requeued dead letters are marked", () => {
  // A mark is tried for twice the storage deadline (3 s here) after its event was queued.
  const deadlineMs = 1500;
  const ids = ["k1", "k2", "k3", "k4", "k5", "k6"];

  /**
   * A redelivery whose store stops answering at the first mark: until the client gives up a
   * request (one deadline, shorter than a mark's tries), or, not `resumes`, for good; then the
   * relay is closed, what it holds dropped, when the call is over. Then, on a clock moved past the
   * claims' 5 minutes, a second call straight to the store.
   */
  async function stalledAtFirstMark(resumes: boolean) {
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
    if (resumes) void relay.untilGivenUp().then(() => relay.resume());
    const stalled = deadLetterEndpoint(sasUrlThrough(sasUrl, relay.port));
    const first = await timed(redelivery.redeliver(DEAD_LETTER_INSTANCE, stalled, {}));
    const givenUp = relay.givenUp();
    await relay.close();
    const afterFirst = [...requeued];
    skew = 6 * 60_000;
    const second = await redelivery.redeliver(DEAD_LETTER_INSTANCE, deadLetterEndpoint(sasUrl), {});
    return { first, givenUp, afterFirst, second, requeued };
  }

  it("a stall shorter than that: every mark lands, and a call after the claims lapse requeues none again", async () => {
    const { givenUp, afterFirst, second, requeued } = await stalledAtFirstMark(true);
    // The stall lasted a request's deadline: one was given up (a claim begun beside the marks
    // fails then, and is the second call's to take).
    expect(givenUp).toBeGreaterThan(0);
    expect(afterFirst.length).toBeGreaterThan(0);
    // What the first call left, the second requeues; nothing twice.
    expect(second.requeued).toBe(ids.length - afterFirst.length);
    expect([...requeued].sort()).toEqual(ids);
  });

  it("the bound: a stall longer than that leaves the marks tried meanwhile unmarked, and only those are requeued a second time once their claims lapse", async () => {
    const { first, afterFirst, second, requeued } = await stalledAtFirstMark(false);
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
