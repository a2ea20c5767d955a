import diagnostics_channel from "node:diagnostics_channel";
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import * as path from "node:path";
import { PerformanceObserver } from "node:perf_hooks";

/**
 * `BENCH_DELIVERY_PROFILE=<dir>`: what the bench process did during one timed delivery run, for
 * attributing its CPU (docs/performance.md): `<label>.cpuprofile`, a CPU profile of its main thread
 * (the host, or the raw SDK's sender; open it in Chrome's DevTools), and `<label>.json`, the HTTP
 * requests it made by method and path (the storage operations: writes, receives, deletes, lock
 * renewals) and the garbage collections of its main thread. The profiler costs CPU itself: the
 * figures of a profiled run are not comparable with those of one that is not.
 */
export async function profiledRun<T>(label: string, run: () => Promise<T>): Promise<T> {
  const dir = process.env.BENCH_DELIVERY_PROFILE;
  if (dir === undefined || dir === "") return run();
  const requests = new Map<string, number>();
  const onRequest = (message: unknown) => {
    const kind = requestKind((message as { request: { method: string; path: string } }).request);
    requests.set(kind, (requests.get(kind) ?? 0) + 1);
  };
  const collections = { count: 0, ms: 0 };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      collections.count++;
      collections.ms += entry.duration;
    }
  });
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
    );
  diagnostics_channel.subscribe("http.client.request.start", onRequest);
  observer.observe({ entryTypes: ["gc"] });
  await post("Profiler.enable");
  await post("Profiler.start");
  try {
    return await run();
  } finally {
    const { profile } = (await post("Profiler.stop")) as { profile: object };
    session.disconnect();
    observer.disconnect();
    diagnostics_channel.unsubscribe("http.client.request.start", onRequest);
    writeFileSync(path.join(dir, `${label}.cpuprofile`), JSON.stringify(profile));
    const counts = { requests: Object.fromEntries(requests), garbageCollections: collections };
    writeFileSync(path.join(dir, `${label}.json`), `${JSON.stringify(counts, null, 2)}\n`);
  }
}

/** `POST /devstoreaccount1/twin-events/messages`, ids and pop receipts left out, the kind of call kept. */
export function requestKind(request: { method: string; path: string }): string {
  const [pathPart = "", query = ""] = request.path.split("?");
  const parameters = new URLSearchParams(query);
  const call = parameters.has("numofmessages")
    ? " (receive)"
    : parameters.has("popreceipt")
      ? request.method === "PUT"
        ? " (update: a lock renewal or release)"
        : " (with pop receipt)"
      : "";
  return `${request.method} ${pathPart.replace(/\/messages\/[^/]+$/, "/messages/<id>")}${call}`;
}
