import * as net from "node:net";
import { ServiceUnavailable } from "../../src/common/errors";
import { DEAD_LETTER_INSTANCE, deadLetterEndpoint, sasUrlThrough } from "../support/delivery-kit";
import { deadLetters, redeliveryRecording } from "../support/redelivery-kit";
import { timed } from "../support/timed";

// A redelivery reads each dead letter in two requests, its length (HEAD) and its bytes (GET), and
// each has a deadline of its own: a store that answers each in a bit more than half a deadline is
// slow, not gone, and is redelivered from; one request slower than its deadline ends the call
// with 503, nothing requeued. The delays are fractions of the redelivery's deadline. Real
// Azurite, behind a relay that holds the chosen requests.

jest.setTimeout(60_000);

/** The request a chunk starts, by its request line, or undefined for a chunk that starts none. */
type Request = "length" | "bytes" | "other";
function requestOf(chunk: Buffer): Request | undefined {
  const line = /^([A-Z]+) (\S+) HTTP\/1\.1\r\n/.exec(chunk.toString("latin1"));
  if (line === null) return undefined;
  if (line[1] === "HEAD") return "length";
  if (line[1] === "GET" && !(line[2] as string).includes("comp=list")) return "bytes";
  return "other";
}

interface HoldingRelay {
  port: number;
  /** The requests held so far, by kind. */
  held: Record<Request, number>;
  close(): Promise<void>;
}

/**
 * A relay in front of the store that holds each request of a kind in `holdMs` that long before
 * passing it on (what the client sends after it on that connection waits behind it, in order):
 * a store that answers those requests, later. Every other request, and every answer, passes at once.
 */
async function startHoldingRelay(
  targetPort: number,
  holdMs: Partial<Record<Request, number>>,
): Promise<HoldingRelay> {
  const held: Record<Request, number> = { length: 0, bytes: 0, other: 0 };
  const sockets = new Set<net.Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const server = net.createServer((client) => {
    const target = net.connect(targetPort, "127.0.0.1");
    sockets.add(client).add(target);
    let due = 0;
    client.on("data", (chunk: Buffer) => {
      const request = requestOf(chunk);
      const hold = request === undefined ? 0 : (holdMs[request] ?? 0);
      if (request !== undefined && hold > 0) held[request]++;
      due = Math.max(due, performance.now() + hold);
      const wait = due - performance.now();
      if (wait <= 0) target.write(chunk);
      else {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!target.destroyed) target.write(chunk);
        }, wait);
        timers.add(timer);
      }
    });
    target.on("data", (chunk: Buffer) => client.write(chunk));
    const end = () => {
      client.destroy();
      target.destroy();
      sockets.delete(client);
      sockets.delete(target);
    };
    for (const socket of [client, target]) socket.on("error", end).on("close", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    held,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const DEADLINE_MS = 1500;
const ids = ["s1", "s2", "s3"];

it("a store answering each of a download's two requests in a bit more than half the deadline is redelivered from", async () => {
  // Together the two take longer than one deadline; each takes well within its own.
  const holdMs = 0.6 * DEADLINE_MS;
  const { sasUrl, marks } = await deadLetters(ids);
  const relay = await startHoldingRelay(Number(new URL(sasUrl).port), { length: holdMs, bytes: holdMs });
  try {
    const endpoint = deadLetterEndpoint(sasUrlThrough(sasUrl, relay.port));
    const { requeued, redelivery } = redeliveryRecording(marks, { deadlineMs: DEADLINE_MS });

    const { ms, error } = await timed(redelivery.redeliver(DEAD_LETTER_INSTANCE, endpoint, {}));
    expect(error).toBeUndefined();
    expect([...requeued].sort()).toEqual(ids);
    // Each dead letter's two requests were held, one after the other: longer than one deadline.
    expect(relay.held).toEqual({ length: ids.length, bytes: ids.length, other: 0 });
    expect(ms).toBeGreaterThan(2 * holdMs);
  } finally {
    await relay.close();
  }
});

it("one request of a download slower than the deadline ends the call with 503, nothing requeued, and the next call redelivers", async () => {
  const { sasUrl, marks } = await deadLetters(ids);
  const relay = await startHoldingRelay(Number(new URL(sasUrl).port), { bytes: 1.5 * DEADLINE_MS });
  try {
    const { requeued, redelivery } = redeliveryRecording(marks, { deadlineMs: DEADLINE_MS });

    const slow = deadLetterEndpoint(sasUrlThrough(sasUrl, relay.port));
    const { ms, error } = await timed(redelivery.redeliver(DEAD_LETTER_INSTANCE, slow, {}));
    expect(error).toBeInstanceOf(ServiceUnavailable);
    expect((error as Error).message).toMatch(/did not answer while the dead letters were being read/);
    expect(requeued).toEqual([]);
    expect(relay.held.bytes).toBeGreaterThan(0);
    expect(ms).toBeGreaterThanOrEqual(DEADLINE_MS - 100);

    // Nothing was claimed: a call straight to the store requeues every one at once.
    const counts = await redelivery.redeliver(DEAD_LETTER_INSTANCE, deadLetterEndpoint(sasUrl), {});
    expect(counts).toEqual({ requeued: ids.length, skipped: 0, failed: 0 });
    expect([...requeued].sort()).toEqual(ids);
  } finally {
    await relay.close();
  }
});
