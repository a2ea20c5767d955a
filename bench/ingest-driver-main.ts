import { type IngestShape, makeEvents, postInShape } from "./bench-events";

/** What the bench asks the ingest driver to post. */
export interface IngestJob {
  id: number;
  baseUrl: string;
  functionKey: string;
  instance: string;
  count: number;
  prefix: string;
  shape: IngestShape;
}

export type IngestDone = { id: number; ok: true } | { id: number; ok: false; error: string };

/**
 * The HTTP ingest client as a process of its own (spawned by ingest-driver.ts): the bench process
 * then holds only the host and the subscribers, and the client's CPU is counted apart. Makes each
 * job's events here (their making is not the service's cost) and answers once all are accepted.
 */
process.on("message", (job: IngestJob) => {
  const events = makeEvents(job.count, job.prefix);
  postInShape(job.baseUrl, job.functionKey, job.instance, events, job.shape).then(
    () => process.send?.({ id: job.id, ok: true } satisfies IngestDone),
    (error: unknown) =>
      process.send?.({
        id: job.id,
        ok: false,
        error: error instanceof Error ? error.message : String(error),
      } satisfies IngestDone),
  );
});
process.on("disconnect", () => process.exit(0));
