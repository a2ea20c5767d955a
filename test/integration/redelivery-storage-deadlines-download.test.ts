import { ServiceUnavailable } from "../../src/common/errors";
import { DEAD_LETTER_INSTANCE, deadLetterEndpoint, sasUrlThrough } from "../support/delivery-kit";
import { startPausableRelay } from "../support/pausable-relay";
import { deadLetters, redeliveryRecording } from "../support/redelivery-kit";
import { timed } from "../support/timed";

// A redelivery reads each dead letter in two requests, its length (HEAD) and its bytes (GET), and
// each has a deadline of its own: a store that answers each in a bit more than half a deadline is
// slow, not gone, and is redelivered from; one request the store does not answer ends the call
// with 503, nothing requeued. Real Azurite, behind a relay that holds the chosen requests.

jest.setTimeout(60_000);

/** A download's request, by the request line its chunk starts with. */
const requestLine = (chunk: Buffer) => /^([A-Z]+) (\S+) HTTP\/1\.1\r\n/.exec(chunk.toString("latin1"));
const lengthRequest = (chunk: Buffer) => requestLine(chunk)?.[1] === "HEAD";
function bytesRequest(chunk: Buffer): boolean {
  const line = requestLine(chunk);
  return line?.[1] === "GET" && !(line[2] as string).includes("comp=list");
}

const DEADLINE_MS = 3000;
const ids = ["s1", "s2", "s3"];

it("a store answering each of a download's two requests in a bit more than half the deadline is redelivered from", async () => {
  // Together the two take longer than one deadline; each, well within its own. One dead letter,
  // so that nothing else is under way while the store is paused (an answer held with a request
  // would count against that answer's own deadline).
  const holdMs = 0.55 * DEADLINE_MS;
  const only = ["s1"];
  const { sasUrl, marks } = await deadLetters(only);
  const relay = await startPausableRelay(Number(new URL(sasUrl).port));
  // The length request pauses the store for holdMs; then the bytes request, the same.
  const slowStore = (async () => {
    for (const request of [lengthRequest, bytesRequest]) {
      await relay.pauseAt(request);
      await new Promise((resolve) => setTimeout(resolve, holdMs));
      relay.resume();
    }
  })();
  try {
    const endpoint = deadLetterEndpoint(sasUrlThrough(sasUrl, relay.port));
    const { requeued, redelivery } = redeliveryRecording(marks, { deadlineMs: DEADLINE_MS });

    const { ms, error } = await timed(redelivery.redeliver(DEAD_LETTER_INSTANCE, endpoint, {}));
    expect(error).toBeUndefined();
    await slowStore;
    expect(requeued).toEqual(only);
    // Read in two requests, one after the other, each held, none given up.
    const reads = relay.requestLines().filter((line) => !line.includes("comp="));
    expect(reads.map((line) => line.split(" ")[0])).toEqual(["HEAD", "GET"]);
    expect(relay.givenUp()).toBe(0);
    expect(ms).toBeGreaterThan(2 * holdMs);
  } finally {
    relay.resume();
    await relay.close();
  }
});

it("one request of a download the store does not answer ends the call with 503 at its deadline, nothing requeued, and the next call redelivers", async () => {
  const { sasUrl, marks } = await deadLetters(ids);
  // Silent from the first bytes request until the call is over.
  const relay = await startPausableRelay(Number(new URL(sasUrl).port), bytesRequest);
  try {
    const { requeued, redelivery } = redeliveryRecording(marks, { deadlineMs: DEADLINE_MS });

    const silent = deadLetterEndpoint(sasUrlThrough(sasUrl, relay.port));
    const { ms, error } = await timed(redelivery.redeliver(DEAD_LETTER_INSTANCE, silent, {}));
    // Ended by the client giving the request up, no earlier than its deadline: without one the
    // call would still be waiting.
    await relay.untilGivenUp();
    expect(error).toBeInstanceOf(ServiceUnavailable);
    expect((error as Error).message).toMatch(/did not answer while the dead letters were being read/);
    expect(requeued).toEqual([]);
    expect(ms).toBeGreaterThanOrEqual(DEADLINE_MS - 100);

    // Nothing was claimed: a call straight to the store requeues every one at once.
    const counts = await redelivery.redeliver(DEAD_LETTER_INSTANCE, deadLetterEndpoint(sasUrl), {});
    expect(counts).toEqual({ requeued: ids.length, skipped: 0, failed: 0 });
    expect([...requeued].sort()).toEqual(ids);
  } finally {
    relay.resume();
    await relay.close();
  }
});
