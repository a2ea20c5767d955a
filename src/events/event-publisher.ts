import type { QueueClient } from "@azure/storage-queue";
import { STORAGE_CALL_DEADLINE_MS, storageDeadline } from "../store/storage-deadline";
import { translateStorageError } from "../store/storage-errors";
import type { CloudEvent } from "./cloud-event";
import { packQueueTexts } from "./queue-texts";

/** Requests for one instance whose events wait to go into the next write together. */
interface PendingWrite {
  events: CloudEvent[];
  /** When the first of them arrived: the delivery TTL counts from the earliest. */
  receivedAt: string;
  settle: { resolve(): void; reject(error: unknown): void }[];
}

/** How long a write may take before it is logged, and before it is abandoned. */
export interface PublisherTimings {
  /** Logs a warning about a write still under way. Default console.warn. */
  warn?: (message: string) => void;
  /** Default 5 s. */
  slowWriteMs?: number;
  /** Default 20 s: a device's request gets its 503 while it is still waiting for an answer. */
  writeTimeoutMs?: number;
  /**
   * How long a busy instance's next write waits for more requests to join it: a write starts no
   * sooner than this after the instance's previous one began. Default 0 (none).
   */
  lingerMs?: number;
}

/** Past this many instances remembered, those idle for longer than the linger are forgotten. */
const REMEMBERED_INSTANCES = 10_000;

/**
 * Puts ingested events durably on the twin-events queue, split into messages under the queue's
 * 64 KiB limit. Resolves only when every message holding the request's events is stored: that is
 * what a 202 promises.
 *
 * Group commit, per instance: while a write for an instance is under way, the events of the
 * requests that arrive for it wait and then go out together in the next write. With one event
 * per request (as Azure Digital Twins routes them) this turns hundreds of queue messages a second
 * into a few dozen, each carrying many events: fewer storage transactions, and one queue-trigger
 * invocation and one Service Bus batch per message downstream. An idle instance's request is
 * written at once, so coalescing adds no wait, only what the previous write still takes. A failed
 * write fails every request whose events it carried; none of them is acknowledged.
 *
 * A write still under way after `stallMs` stops holding the others back: the next write starts
 * beside it, so a storage request that hangs delays only the requests it carries. One still under
 * way after `slowWriteMs` is logged as a warning, and one not done after `writeTimeoutMs` is
 * abandoned and fails its requests (a 503 to retry). The storage SDK would not give up by itself:
 * its `tryTimeoutInMs` only asks the service to (a `timeout` URL parameter), so against a service
 * that answers nothing at all a call waits as long as the connection stays open.
 *
 * A write of more than a few events' JSON goes out compressed (queue-texts.ts): one message then
 * holds several times as many events.
 *
 * With `lingerMs`, an instance that wrote less than that ago waits out the rest before its next
 * write, so that at tens of requests a second one message carries several of them (each message
 * is a queue Put, Get and Delete and a delivery execution: most of what an event delivered one by
 * one costs, bench/cost.ts). An instance that has been quiet for `lingerMs` is written at once.
 */
export class EventPublisher {
  private queueReady: Promise<unknown> | undefined;
  /** Instances with a write under way that has not yet taken `stallMs`. */
  private readonly writing = new Set<string>();
  private readonly pending = new Map<string, PendingWrite>();
  /** When each instance's last write began (performance.now()), and the instances waiting out the linger. */
  private readonly lastWriteAt = new Map<string, number>();
  private readonly lingering = new Set<string>();
  private readonly warn: (message: string) => void;
  private readonly slowWriteMs: number;
  private readonly writeTimeoutMs: number;
  private readonly lingerMs: number;

  constructor(
    private readonly queue: QueueClient,
    private readonly now: () => Date = () => new Date(),
    private readonly stallMs = 500,
    timings: PublisherTimings = {},
  ) {
    this.warn = timings.warn ?? ((message) => console.warn(message));
    this.slowWriteMs = timings.slowWriteMs ?? 5000;
    this.writeTimeoutMs = timings.writeTimeoutMs ?? STORAGE_CALL_DEADLINE_MS;
    this.lingerMs = timings.lingerMs ?? 0;
  }

  publish(twinsInstanceId: string, events: CloudEvent[]): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      let waiting = this.pending.get(twinsInstanceId);
      if (waiting === undefined) {
        waiting = { events: [], receivedAt: this.now().toISOString(), settle: [] };
        this.pending.set(twinsInstanceId, waiting);
      }
      // A loop, not push(...events): spreading a very large batch would overflow the call stack.
      for (const event of events) waiting.events.push(event);
      waiting.settle.push({ resolve: () => resolve(events.length), reject });
      this.writeNext(twinsInstanceId);
    });
  }

  /** Starts the instance's next write, unless one is under way (its end starts the next). */
  private writeNext(twinsInstanceId: string): void {
    const next = this.pending.get(twinsInstanceId);
    if (next === undefined || this.writing.has(twinsInstanceId) || this.lingering.has(twinsInstanceId))
      return;
    const wait =
      (this.lastWriteAt.get(twinsInstanceId) ?? Number.NEGATIVE_INFINITY) + this.lingerMs - performance.now();
    if (wait > 0) {
      this.lingering.add(twinsInstanceId);
      setTimeout(() => {
        this.lingering.delete(twinsInstanceId);
        this.writeNext(twinsInstanceId);
      }, wait);
      return;
    }
    this.remember(twinsInstanceId);
    this.pending.delete(twinsInstanceId);
    this.writing.add(twinsInstanceId);
    let holding = true;
    const release = () => {
      if (!holding) return;
      holding = false;
      this.writing.delete(twinsInstanceId);
      this.writeNext(twinsInstanceId);
    };
    const stalled = setTimeout(release, this.stallMs);
    stalled.unref();
    const slow = setTimeout(
      () =>
        this.warn(
          `Storing ${next.events.length} event(s) of ${twinsInstanceId} on queue '${this.queue.name}' has taken ` +
            `${this.slowWriteMs / 1000} s and is not done: ${next.settle.length} ingest request(s) wait for Azure Storage.`,
        ),
      this.slowWriteMs,
    );
    slow.unref();
    this.write(twinsInstanceId, next)
      .then(
        () => {
          for (const request of next.settle) request.resolve();
        },
        (error: unknown) => {
          const translated = translateStorageError(error);
          for (const request of next.settle) request.reject(translated);
        },
      )
      .finally(() => {
        clearTimeout(stalled);
        clearTimeout(slow);
        release();
      });
  }

  private remember(twinsInstanceId: string): void {
    if (this.lingerMs === 0) return;
    const now = performance.now();
    if (this.lastWriteAt.size >= REMEMBERED_INSTANCES)
      for (const [instance, at] of this.lastWriteAt)
        if (now - at >= this.lingerMs) this.lastWriteAt.delete(instance);
    this.lastWriteAt.set(twinsInstanceId, now);
  }

  private async write(twinsInstanceId: string, batch: PendingWrite): Promise<void> {
    const messages = await packQueueTexts({ twinsInstanceId, receivedAt: batch.receivedAt }, batch.events);
    // One deadline for the write, a signal per call: the SDK hangs listeners on the signal it is
    // given, and a write of many messages would pile them on one (a MaxListenersExceededWarning).
    const deadline = performance.now() + this.writeTimeoutMs;
    const abortSignal = () => storageDeadline(deadline - performance.now());
    // Created once per process; a failed attempt is forgotten so the next request tries again.
    this.queueReady ??= this.queue
      .createIfNotExists({ abortSignal: abortSignal() })
      .catch((error: unknown) => {
        this.queueReady = undefined;
        throw error;
      });
    await this.queueReady;
    await Promise.all(
      messages.map((message) => this.queue.sendMessage(message, { abortSignal: abortSignal() })),
    );
  }
}
