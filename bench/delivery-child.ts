import { fork } from "node:child_process";
import * as path from "node:path";

/** A delivery child's job: empty `queue` into `topics` (the forwarder's; the host finds its endpoints). */
export type DeliveryJob = { queue: string; topics: string[] };
type ToChild = ({ kind: "start" } & DeliveryJob) | { kind: "stop" };
type FromChild = { ok: true } | { ok: false; message: string };

/** A process delivering from storage queues (the host's trigger, or the bare forwarder); stop() resolves once all it took is sent and deleted. */
export type DeliveryChild = { pid: number; start(job: DeliveryJob): Promise<void> } & Record<
  "stop" | "close",
  () => Promise<void>
>;

/** Forks dist/bench/<script> with `env` added and waits until it is ready; one request at a time. */
export async function spawnDeliveryChild(script: string, env: NodeJS.ProcessEnv): Promise<DeliveryChild> {
  const child = fork(path.join(__dirname, script), [], { env: { ...process.env, ...env } });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let waiting: ((answer: FromChild) => void) | undefined;
  child.on("message", (answer: FromChild) => waiting?.(answer));
  void exited.then(() => waiting?.({ ok: false, message: "exited" }));
  const ask = (message?: ToChild) =>
    new Promise<void>((resolve, reject) => {
      waiting = (answer) => (answer.ok ? resolve() : reject(new Error(`${script}: ${answer.message}`)));
      if (message) child.send(message);
    });
  await ask();
  return {
    pid: child.pid as number,
    start: (job) => ask({ kind: "start", ...job }),
    stop: () => ask({ kind: "stop" }),
    close: () => Promise.resolve(child.connected && child.disconnect()).then(() => exited),
  };
}

/** The child's side: `start` per job, the stop it returns on "stop"; `close` once the parent goes. */
export function serveDeliveryJobs(
  start: (job: DeliveryJob) => Promise<() => Promise<void>>,
  close: () => Promise<void>,
) {
  let stop = async () => {};
  const answer = (work: Promise<unknown>) =>
    work.then(
      () => process.send?.({ ok: true } satisfies FromChild),
      (error: unknown) => process.send?.({ ok: false, message: String(error) } satisfies FromChild),
    );
  process.on("message", (message: ToChild) =>
    answer(message.kind === "start" ? start(message).then((stopper) => (stop = stopper)) : stop()),
  );
  process.on("disconnect", () => void close().finally(() => process.exit(0)));
  process.send?.({ ok: true } satisfies FromChild);
}
