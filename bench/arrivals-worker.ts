import { readlinkSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { ServiceBusClient } from "@azure/service-bus";

export interface ArrivalsJob {
  connectionString: string;
  topic: string;
  subscription: string;
  /** Also report each message's id and the broker's enqueued time (for latency figures). */
  timestamps?: boolean;
}

/** A message id and when the broker enqueued it (ms since the epoch): when it acknowledged the send. */
export type Enqueued = [messageId: string, enqueuedAtMs: number];

export type ArrivalsMessage =
  | { type: "ready"; tid?: number }
  | { type: "count"; received: number; at: number; enqueued?: Enqueued[] };

/** This thread's id in the kernel (Linux), so the bench can read its CPU time; undefined elsewhere. */
function kernelThreadId(): number | undefined {
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    return Number.isInteger(tid) ? tid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One subscriber of arrivals.ts, on a worker thread: receiving (decoding every message) then costs
 * the host's thread nothing, so fan-out figures show what delivery costs, not what subscribers do.
 */
async function receive(job: ArrivalsJob, post: (message: ArrivalsMessage) => void, stopped: () => boolean) {
  const client = new ServiceBusClient(job.connectionString);
  const receiver = client.createReceiver(job.topic, job.subscription, { receiveMode: "receiveAndDelete" });
  try {
    // The first receive attaches the link, which creates the subscription on the stand-in.
    let received = (await receiver.receiveMessages(1, { maxWaitTimeInMs: 100 })).length;
    post({ type: "ready", tid: kernelThreadId() });
    // Large receives, so the subscriber is never what limits the figures.
    while (!stopped()) {
      const batch = await receiver.receiveMessages(1000, { maxWaitTimeInMs: 20 });
      if (batch.length === 0) continue;
      received += batch.length;
      post({
        type: "count",
        received,
        // When this thread had them, as wall-clock ms (comparable across threads): the bench's
        // main thread may be busy (it runs the host) and hear of them later.
        at: performance.timeOrigin + performance.now(),
        ...(job.timestamps && {
          enqueued: batch.map(
            (message): Enqueued => [
              String(message.messageId),
              message.enqueuedTimeUtc?.getTime() ?? Number.NaN,
            ],
          ),
        }),
      });
    }
  } finally {
    await receiver.close();
    await client.close();
  }
}

const port = parentPort;
if (port === null) throw new Error("bench/arrivals-worker.js runs as a worker thread");
let stopping = false;
port.once("message", () => {
  stopping = true;
});
receive(
  workerData as ArrivalsJob,
  (message) => port.postMessage(message),
  () => stopping,
).then(
  () => port.close(),
  (error: unknown) =>
    setImmediate(() => {
      throw error;
    }),
);
