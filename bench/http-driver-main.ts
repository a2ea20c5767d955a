import { runConcurrent } from "./concurrent";
import { LoopbackClient } from "./http-client";
import type { DriverMessage, DriverResult, HttpDriverJob } from "./http-driver-process";
import { processCpuMicrosFine } from "./process-cpu";

/**
 * The HTTP benchmark's driver, a process of its own (started by http-driver-process.ts) that lives
 * for the whole benchmark: one keep-alive client per server and concurrency, kept from slice to
 * slice, so every slice after the warm-up runs on warm connections and warm JIT, as a real client
 * would. For each job it reads the server's CPU time (/proc) right before its first request and
 * right after its last answer, and its own CPU time over the same span.
 */
const clients = new Map<string, LoopbackClient>();

function clientFor(job: HttpDriverJob): LoopbackClient {
  const key = `${job.baseUrl} ${job.concurrency}`;
  let client = clients.get(key);
  if (client === undefined) {
    client = new LoopbackClient(job.baseUrl, job.concurrency);
    clients.set(key, client);
  }
  return client;
}

async function run(job: HttpDriverJob): Promise<DriverResult> {
  const client = clientFor(job);
  const options = { headers: job.headers, ...(job.body !== undefined && { body: job.body }) };
  const cosmosBefore = job.cosmosPid === undefined ? Number.NaN : processCpuMicrosFine(job.cosmosPid);
  const serverBefore = processCpuMicrosFine(job.serverPid);
  const driverBefore = process.cpuUsage();
  const figure = await runConcurrent(job.count, job.concurrency, async (index) => {
    const name = job.modulo === undefined ? index : index % job.modulo;
    const { status } = await client.request(job.method, `${job.pathPrefix}${name}`, options);
    return status === job.expected ? undefined : String(status);
  });
  const driver = process.cpuUsage(driverBefore);
  const serverMicros = processCpuMicrosFine(job.serverPid) - serverBefore;
  const cosmosMicros =
    job.cosmosPid === undefined ? Number.NaN : processCpuMicrosFine(job.cosmosPid) - cosmosBefore;
  return { figure, serverMicros, driverMicros: driver.user + driver.system, cosmosMicros };
}

process.on("message", (message: DriverMessage) => {
  if (message.type !== "job") return;
  run(message.job).then(
    (result) => process.send?.({ type: "done", id: message.id, result }),
    (error: unknown) => process.send?.({ type: "failed", id: message.id, message: String(error) }),
  );
});
process.on("disconnect", () => {
  for (const client of clients.values()) client.close();
  process.exit(0);
});
process.send?.({ type: "ready" });
