import type { CloudEvent } from "../src/events/cloud-event";
import { type IngestShape, makeEvents, postInShape } from "./bench-events";
import { LoopbackClient } from "./http-client";

/** Makes a job's events (answered once they are made), ready for a `post` of the same id. */
export interface PrepareJob {
  kind: "prepare";
  id: number;
  count: number;
  prefix: string;
}

/** Posts the events a `prepare` of the same id made (answered once all got 202). */
export interface PostJob {
  kind: "post";
  id: number;
  instance: string;
  shape: IngestShape;
}

export type IngestJob = PrepareJob | PostJob;

export type IngestDone = { id: number; ok: true } | { id: number; ok: false; error: string };

/** Every request from this process: the host's base URL and function key, as the driver was started with. */
const BASE_URL = process.env.INGEST_BASE_URL ?? "";
const FUNCTION_KEY = process.env.INGEST_FUNCTION_KEY ?? "";
/** More sockets than any shape keeps in flight: the shape, not the pool, sets the concurrency. */
const client = new LoopbackClient(BASE_URL, 64);
const prepared = new Map<number, CloudEvent[]>();

function answer(id: number, outcome: Promise<void>): void {
  outcome.then(
    () => process.send?.({ id, ok: true } satisfies IngestDone),
    (error: unknown) =>
      process.send?.({
        id,
        ok: false,
        error: error instanceof Error ? error.message : String(error),
      } satisfies IngestDone),
  );
}

/**
 * The HTTP ingest client as a process of its own (spawned by ingest-driver.ts): the bench process
 * then holds only the host and the subscribers, and the client's CPU is counted apart. A job's
 * events are made before its timed part (`prepare`), as the raw SDK's are made before its run:
 * making the bench's data is neither path's cost. Serialising them is, on both paths (the raw SDK
 * encodes its messages in its run), so each request's JSON is made as it is sent.
 */
process.on("message", (job: IngestJob) => {
  if (job.kind === "prepare") {
    prepared.set(job.id, makeEvents(job.count, job.prefix));
    answer(job.id, Promise.resolve());
    return;
  }
  const events = prepared.get(job.id);
  prepared.delete(job.id);
  answer(
    job.id,
    events === undefined
      ? Promise.reject(new Error(`no events were prepared for job ${job.id}`))
      : postInShape(client, FUNCTION_KEY, job.instance, events, job.shape),
  );
});
process.on("disconnect", () => {
  client.close();
  process.exit(0);
});
