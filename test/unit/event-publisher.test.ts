import type { QueueClient } from "@azure/storage-queue";
import fc from "fast-check";
import type { CloudEvent } from "../../src/events/cloud-event";
import { EventPublisher } from "../../src/events/event-publisher";
import { useFakeClock } from "../support/fake-clock";
import { incompressibleText } from "../support/incompressible";

/**
 * A publisher whose slow-write warning goes nowhere: these tests hold writes open on purpose, and
 * the warning would otherwise reach the console after the test is done.
 */
function quietPublisher(
  queue: QueueClient,
  now: () => Date = () => new Date(),
  stallMs = 500,
): EventPublisher {
  return new EventPublisher(queue, now, stallMs, { warn: () => {} });
}

function event(id: string): CloudEvent {
  return { id, source: "/s", specversion: "1.0", type: "t", data: { id } };
}

/** A queue whose sendMessage calls wait until the test lets them finish (or fail). */
function heldQueue() {
  const sent: { text: string; signal?: AbortSignal; finish(error?: Error): void }[] = [];
  const queue = {
    name: "twin-events",
    createIfNotExists: async () => ({}),
    sendMessage: (text: string, options?: { abortSignal?: AbortSignal }) =>
      new Promise((resolve, reject) => {
        sent.push({
          text,
          ...(options?.abortSignal && { signal: options.abortSignal }),
          finish: (error) => (error ? reject(error) : resolve({})),
        });
      }),
  };
  return { queue: queue as unknown as QueueClient, sent };
}

function decoded(text: string): { twinsInstanceId: string; receivedAt: string; events: CloudEvent[] } {
  return JSON.parse(Buffer.from(text, "base64").toString("utf8"));
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("EventPublisher (group commit per instance)", () => {
  // On a fake clock: a stall, warning or write deadline comes when a test moves the clock, so a
  // slow machine cannot set one off between two lines that must come before it.
  let realClock: () => void;
  beforeEach(() => {
    realClock = useFakeClock();
  });
  afterEach(() => realClock());

  it("writes an idle instance's request at once, then everything that arrived meanwhile in one message", async () => {
    const { queue, sent } = heldQueue();
    const publisher = quietPublisher(queue);
    const first = publisher.publish("/i/a", [event("1")]);
    await tick();
    expect(sent).toHaveLength(1);
    const later = [
      publisher.publish("/i/a", [event("2")]),
      publisher.publish("/i/a", [event("3"), event("4")]),
    ];
    await tick();
    expect(sent).toHaveLength(1); // the others wait for the write under way
    sent[0]?.finish();
    await expect(first).resolves.toBe(1);
    await tick();
    expect(sent).toHaveLength(2);
    expect(decoded(sent[1]?.text as string).events.map((e) => e.id)).toEqual(["2", "3", "4"]);
    sent[1]?.finish();
    await expect(Promise.all(later)).resolves.toEqual([1, 2]);
  });

  it("lets a busy instance's next write wait out the linger, and writes an idle one's at once", async () => {
    const { queue, sent } = heldQueue();
    const publisher = new EventPublisher(queue, () => new Date(), 500, { warn: () => {}, lingerMs: 50 });
    const first = publisher.publish("/i/a", [event("1")]);
    await tick();
    expect(sent).toHaveLength(1); // idle: at once
    sent[0]?.finish();
    await expect(first).resolves.toBe(1);
    const later = [publisher.publish("/i/a", [event("2")]), publisher.publish("/i/a", [event("3")])];
    const other = publisher.publish("/i/b", [event("b")]);
    await tick();
    // Another instance never waits for this one's linger.
    expect(sent.map((write) => decoded(write.text).twinsInstanceId)).toEqual(["/i/a", "/i/b"]);
    jest.advanceTimersByTime(49);
    await tick();
    expect(sent).toHaveLength(2);
    jest.advanceTimersByTime(1);
    await tick();
    expect(sent).toHaveLength(3);
    expect(decoded(sent[2]?.text as string).events.map((e) => e.id)).toEqual(["2", "3"]);
    sent[1]?.finish();
    sent[2]?.finish();
    await expect(Promise.all([...later, other])).resolves.toEqual([1, 1, 1]);
    // Quiet for the linger since its last write began: written at once again.
    jest.advanceTimersByTime(50);
    void publisher.publish("/i/a", [event("4")]);
    await tick();
    expect(sent).toHaveLength(4);
    sent[3]?.finish();
  });

  it("never holds one instance's events back for another's write", async () => {
    const { queue, sent } = heldQueue();
    const publisher = quietPublisher(queue);
    void publisher.publish("/i/a", [event("a")]);
    const b = publisher.publish("/i/b", [event("b")]);
    await tick();
    expect(sent.map((write) => decoded(write.text).twinsInstanceId)).toEqual(["/i/a", "/i/b"]);
    sent[1]?.finish();
    await expect(b).resolves.toBe(1);
  });

  it("fails every request whose events a failed write carried, and none other", async () => {
    const { queue, sent } = heldQueue();
    const publisher = quietPublisher(queue);
    const first = publisher.publish("/i/a", [event("1")]);
    await tick();
    const second = publisher.publish("/i/a", [event("2")]);
    const third = publisher.publish("/i/a", [event("3")]);
    sent[0]?.finish();
    await first;
    await tick();
    sent[1]?.finish(Object.assign(new Error("storage down"), { statusCode: 503 }));
    await expect(second).rejects.toBeDefined();
    await expect(third).rejects.toBeDefined();
    // The next request is written afresh.
    const fourth = publisher.publish("/i/a", [event("4")]);
    await tick();
    expect(decoded(sent[2]?.text as string).events.map((e) => e.id)).toEqual(["4"]);
    sent[2]?.finish();
    await expect(fourth).resolves.toBe(1);
  });

  it("stops holding the instance's requests back for a write that stalls", async () => {
    const { queue, sent } = heldQueue();
    const publisher = quietPublisher(queue, () => new Date(), 30);
    const stuck = publisher.publish("/i/a", [event("1")]);
    await tick();
    const later = publisher.publish("/i/a", [event("2")]);
    await tick();
    expect(sent).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(30);
    // The first write is still under way; the second went out beside it and is not held up.
    expect(sent).toHaveLength(2);
    expect(decoded(sent[1]?.text as string).events.map((e) => e.id)).toEqual(["2"]);
    sent[1]?.finish();
    await expect(later).resolves.toBe(1);
    sent[0]?.finish();
    await expect(stuck).resolves.toBe(1);
  });

  it("warns once about a write still under way after slowWriteMs, naming what waits, and not about quick ones", async () => {
    const { queue, sent } = heldQueue();
    const warnings: string[] = [];
    const publisher = new EventPublisher(queue, () => new Date(), 10, {
      warn: (message) => warnings.push(message),
      slowWriteMs: 40,
    });
    const quick = publisher.publish("/i/quick", [event("q")]);
    await tick();
    sent[0]?.finish();
    await quick;
    const slow = publisher.publish("/i/slow", [event("1"), event("2")]);
    await tick();
    await jest.advanceTimersByTimeAsync(39);
    expect(warnings).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("2 event(s) of /i/slow on queue 'twin-events'");
    expect(warnings[0]).toContain("1 ingest request(s) wait");
    sent[1]?.finish();
    await expect(slow).resolves.toBe(2);
    await jest.advanceTimersByTimeAsync(60);
    expect(warnings).toHaveLength(1);
  });

  it("gives every storage call of a write its own signal, all aborting at the write's one deadline", async () => {
    const { queue, sent } = heldQueue();
    const publisher = new EventPublisher(queue, () => new Date(), 10, { writeTimeoutMs: 60, warn: () => {} });
    // Three events of ~30 KB that do not compress: three messages in one write (one shared signal would collect the
    // SDK's abort listeners of every call, and a large write set off MaxListenersExceededWarning).
    const big = [1, 2, 3].map((n) => ({ ...event(String(n)), data: incompressibleText(30_000) }));
    void publisher.publish("/i/a", big).catch(() => undefined);
    await tick();
    expect(sent).toHaveLength(3);
    const signals = sent.map((write) => write.signal as AbortSignal);
    expect(new Set(signals).size).toBe(3);
    await jest.advanceTimersByTimeAsync(59);
    expect(signals.some((signal) => signal.aborted)).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(signals.every((signal) => signal.aborted)).toBe(true);
  });

  it("stamps a coalesced message with its earliest arrival, so the delivery TTL is never extended", async () => {
    const { queue, sent } = heldQueue();
    let now = Date.parse("2026-01-01T00:00:00Z");
    const publisher = quietPublisher(queue, () => new Date(now));
    void publisher.publish("/i/a", [event("1")]);
    await tick();
    now += 1000;
    void publisher.publish("/i/a", [event("2")]);
    now += 1000;
    void publisher.publish("/i/a", [event("3")]);
    sent[0]?.finish();
    await tick();
    await tick();
    expect(decoded(sent[1]?.text as string).receivedAt).toBe("2026-01-01T00:00:01.000Z");
  });
});

describe("EventPublisher under hostile interleavings", () => {
  // Instances whose ids differ only by case are different instances to the queue message: their
  // events must never share a message, nor wait for each other's writes.
  const INSTANCES = ["/i/plant", "/i/PLANT", "/i/other"];

  it("acknowledges a request only when a write holding all its events succeeded, and loses or mixes none", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            instance: fc.constantFrom(...INSTANCES),
            size: fc.integer({ min: 1, max: 4 }),
            // What the test does after this request: let some writes finish (or fail), or not.
            settle: fc.array(fc.record({ write: fc.nat(), fail: fc.boolean() }), { maxLength: 2 }),
          }),
          { minLength: 1, maxLength: 25 },
        ),
        async (script) => {
          const { queue, sent } = heldQueue();
          const publisher = quietPublisher(queue, () => new Date(), 60_000);
          const finished = new Set<number>();
          const failedWrites = new Set<number>();
          const outcome: Promise<"ok" | "failed">[] = [];
          const requests: { instance: string; ids: string[] }[] = [];
          const finish = (index: number, fail: boolean) => {
            if (finished.has(index) || sent[index] === undefined) return;
            finished.add(index);
            if (fail) failedWrites.add(index);
            sent[index]?.finish(fail ? Object.assign(new Error("down"), { statusCode: 503 }) : undefined);
          };
          for (const [number, step] of script.entries()) {
            const ids = Array.from({ length: step.size }, (_, k) => `r${number}-${k}`);
            requests.push({ instance: step.instance, ids });
            outcome.push(
              publisher.publish(step.instance, ids.map(event)).then(
                (accepted) => {
                  expect(accepted).toBe(step.size);
                  return "ok" as const;
                },
                () => "failed" as const,
              ),
            );
            await tick();
            for (const { write, fail } of step.settle) finish(write % Math.max(sent.length, 1), fail);
            await tick();
          }
          // Drain: every write still under way, and every write it starts, succeeds.
          for (let index = 0; index < sent.length || finished.size < sent.length; index++) {
            finish(index, false);
            await tick();
            await tick();
          }
          const results = await Promise.all(outcome);
          const writes = sent.map((write, index) => ({ ...decoded(write.text), index }));
          // Every event went out in exactly one write, in its own instance's message.
          const seen = new Map<string, { instance: string; index: number }>();
          for (const write of writes) {
            for (const written of write.events) {
              expect(seen.has(written.id)).toBe(false);
              seen.set(written.id, { instance: write.twinsInstanceId, index: write.index });
            }
          }
          for (const [number, request] of requests.entries()) {
            const places = request.ids.map((id) => seen.get(id));
            expect(places.every((place) => place?.instance === request.instance)).toBe(true);
            // A request's events travel together in one write, and its answer is that write's.
            expect(new Set(places.map((place) => place?.index)).size).toBe(1);
            const write = places[0]?.index as number;
            expect(results[number]).toBe(failedWrites.has(write) ? "failed" : "ok");
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
