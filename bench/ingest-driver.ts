import { type ChildProcess, fork } from "node:child_process";
import * as path from "node:path";
import type { IngestShape } from "./bench-events";
import type { IngestDone, IngestJob } from "./ingest-driver-main";

/** The ingest client in a child process (ingest-driver-main.ts). */
export interface IngestDriver {
  /**
   * Makes `count` events named `prefix-<n>` in the driver, then resolves with the function that
   * posts them to `instance` in `shape` (resolving once all got 202): call it inside the timed part,
   * so that making the events is outside it.
   */
  prepare(instance: string, count: number, prefix: string, shape: IngestShape): Promise<() => Promise<void>>;
  /** prepare, then post at once: for warm-ups and anything untimed. */
  post(instance: string, count: number, prefix: string, shape: IngestShape): Promise<void>;
  close(): Promise<void>;
}

export async function spawnIngestDriver(baseUrl: string, functionKey: string): Promise<IngestDriver> {
  const child: ChildProcess = fork(path.join(__dirname, "ingest-driver-main.js"), [], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: { ...process.env, INGEST_BASE_URL: baseUrl, INGEST_FUNCTION_KEY: functionKey },
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.once("spawn", resolve);
    child.once("error", reject);
  });
  const waiting = new Map<number, { resolve(): void; reject(error: Error): void }>();
  let nextId = 0;
  child.on("message", (done: IngestDone) => {
    const job = waiting.get(done.id);
    waiting.delete(done.id);
    if (done.ok) job?.resolve();
    else job?.reject(new Error(done.error));
  });
  void exited.then(() => {
    for (const job of waiting.values()) job.reject(new Error("the ingest driver exited"));
    waiting.clear();
  });
  const run = (job: IngestJob) =>
    new Promise<void>((resolve, reject) => {
      waiting.set(job.id, { resolve, reject });
      child.send(job);
    });
  const prepare: IngestDriver["prepare"] = async (instance, count, prefix, shape) => {
    const id = nextId++;
    await run({ kind: "prepare", id, count, prefix });
    return () => run({ kind: "post", id, instance, shape });
  };
  return {
    prepare,
    async post(instance, count, prefix, shape) {
      await (await prepare(instance, count, prefix, shape))();
    },
    async close() {
      if (child.connected) child.disconnect();
      await exited;
    },
  };
}
