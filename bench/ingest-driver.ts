import { type ChildProcess, fork } from "node:child_process";
import * as path from "node:path";
import type { IngestShape } from "./bench-events";
import type { IngestDone, IngestJob } from "./ingest-driver-main";

/** The ingest client in a child process (ingest-driver-main.ts). */
export interface IngestDriver {
  /** Makes `count` events named `prefix-<n>` in the driver and posts them in `shape`; resolves once all got 202. */
  post(instance: string, count: number, prefix: string, shape: IngestShape): Promise<void>;
  close(): Promise<void>;
}

export async function spawnIngestDriver(baseUrl: string, functionKey: string): Promise<IngestDriver> {
  const child: ChildProcess = fork(path.join(__dirname, "ingest-driver-main.js"), [], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
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
  return {
    post(instance, count, prefix, shape) {
      const id = nextId++;
      const job: IngestJob = { id, baseUrl, functionKey, instance, count, prefix, shape };
      return new Promise<void>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        child.send(job);
      });
    },
    async close() {
      if (child.connected) child.disconnect();
      await exited;
    },
  };
}
