import { type ChildProcess, fork } from "node:child_process";
import * as path from "node:path";
import type { RunFigure } from "./concurrent";

/** One measurement: `count` requests to `${pathPrefix}${index % modulo}`, `concurrency` in flight. */
export interface HttpDriverJob {
  baseUrl: string;
  /** The server's process, whose CPU time the driver reads around the requests. */
  serverPid: number;
  /** The Cosmos server's process, read the same way when known (it serves both servers). */
  cosmosPid?: number;
  method: "GET" | "PUT";
  pathPrefix: string;
  /** When set, paths cycle through this many names; otherwise every request has its own. */
  modulo?: number;
  count: number;
  concurrency: number;
  headers: Record<string, string>;
  body?: string;
  expected: number;
}

export interface DriverResult {
  figure: RunFigure;
  /** The server process's CPU time (user + system, every thread) over the job, in microseconds. */
  serverMicros: number;
  /** The driver process's own CPU time over the job, in microseconds. */
  driverMicros: number;
  /** The Cosmos server's CPU time over the job, in microseconds; NaN when its process is not known. */
  cosmosMicros: number;
}

export type DriverMessage = { type: "job"; id: number; job: HttpDriverJob };

type DriverReply =
  | { type: "ready" }
  | { type: "done"; id: number; result: DriverResult }
  | { type: "failed"; id: number; message: string };

export interface HttpDriver {
  pid: number;
  run(job: HttpDriverJob): Promise<DriverResult>;
  stop(): Promise<void>;
}

const READY_MS = 30_000;

/**
 * Starts the HTTP benchmark's driver (http-driver-main.ts), a child process that lives as long as
 * the benchmark: its own core to schedule on, its keep-alive connections and JIT kept across
 * slices, and its CPU time measured apart from everything else in the bench process.
 */
export function startHttpDriver(): Promise<HttpDriver> {
  const child: ChildProcess = fork(path.join(__dirname, "http-driver-main.js"), [], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const pending = new Map<number, { resolve(result: DriverResult): void; reject(error: Error): void }>();
  let nextId = 0;
  const failAll = (error: Error) => {
    for (const waiter of pending.values()) waiter.reject(error);
    pending.clear();
  };
  child.on("message", (reply: DriverReply) => {
    if (reply.type === "ready") return;
    const waiter = pending.get(reply.id);
    pending.delete(reply.id);
    if (reply.type === "done") waiter?.resolve(reply.result);
    else waiter?.reject(new Error(`HTTP driver: ${reply.message}`));
  });
  child.once("exit", (code, signal) => failAll(new Error(`the HTTP driver exited (${signal ?? code})`)));
  const driver: HttpDriver = {
    pid: child.pid ?? 0,
    run: (job) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve, reject });
        child.send({ type: "job", id, job } satisfies DriverMessage);
      }),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.disconnect();
      }),
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the HTTP driver did not start")), READY_MS);
    child.once("message", () => {
      clearTimeout(timer);
      resolve(driver);
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the HTTP driver exited while starting (${code})`));
    });
  });
}
