import { randomUUID } from "node:crypto";
import { writeSync } from "node:fs";
import { loadFunctionApp } from "../dev/functions-worker";
import { projectRoot } from "../dev/local-paths";
import { loadConfig, QUOTA_BOUNDS } from "../src/config";
import { runConcurrent } from "./concurrent";
import { recordHttpRequests } from "./http-requests";
import {
  type Cost,
  HOST_CONCURRENCY,
  type InstancePoint,
  type ListPoint,
  type ScalePlan,
} from "./scale-curves";

/**
 * `node dist/bench/scale-curves-main.js '<plan as JSON>'`: the app of bench/scale-curves.ts in a
 * process of its own, its functions loaded as the Functions worker loads them (dev/functions-worker.ts)
 * and driven as the host drives them. It counts the HTTP requests the app sends on Node's
 * `http.client.request.start` channel (bench/http-requests.ts), and times its own CPU
 * (process.cpuUsage): the service's process only. Prints one JSON line.
 */
const SUB = "00000000-0000-0000-0000-0000000000dd";
const params = (i: number) => ({
  subscriptionId: SUB,
  resourceGroupName: "scale-rg",
  instanceName: `scale-${i}`,
});
const instancePath = (i: number) =>
  `/subscriptions/${SUB}/resourceGroups/scale-rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/scale-${i}`;
const BASE = "http://127.0.0.1:7071";

type Answer = { value?: unknown[]; nextLink?: string };
const EVENT = { source: "/scale", specversion: "1.0", type: "Twin.Update", data: { temperature: 21.5 } };
const endpoint = (i: number) =>
  [`${instancePath(i)}/endpoints/out`, { ...params(i), endpointName: "out" }] as const;
const message = (i: number) =>
  JSON.stringify({ twinsInstanceId: instancePath(i), events: [{ ...EVENT, id: randomUUID() }] });

/** The child: the app in this process, driven as the host would drive it. */
async function child({ sizes, connection, cosmosHost }: ScalePlan) {
  const app = loadFunctionApp(projectRoot());
  const sent = recordHttpRequests();
  const measure = async (work: () => Promise<unknown>): Promise<Cost> => {
    sent.take();
    const [cpu, start] = [process.cpuUsage(), performance.now()];
    await work();
    const { user, system } = process.cpuUsage(cpu);
    const cosmos = sent
      .take()
      .requests.filter((line) => line.split(" ")[1]?.startsWith(`${cosmosHost}/`)).length;
    return { cosmos, ms: performance.now() - start, cpuMs: (user + system) / 1000 };
  };
  /** An HTTP function, a GET or (with a body) a PUT: its answer's JSON, or it throws. */
  const call = async (name: string, url: string, params: Record<string, string>, body?: object) => {
    const [method, headers] = [body ? "PUT" : "GET", { "content-type": "application/json" }];
    const text = body && JSON.stringify(body);
    const answer = await app.invokeHttp(name, { method, url: `${BASE}${url}`, params, headers, body: text });
    if (answer.status >= 300) throw new Error(`${method} ${url}: ${answer.status} ${answer.body}`);
    return JSON.parse(answer.body) as Answer;
  };
  const run = async (count: number, concurrency: number, op: (k: number) => Promise<unknown>) => {
    const { failures } = await runConcurrent(count, concurrency, async (k) => void (await op(k)));
    if (Object.keys(failures).length > 0) throw new Error(JSON.stringify(failures));
  };
  const secrets = { queuePrimaryConnectionString: connection, queueSecondaryConnectionString: connection };
  const instances: InstancePoint[] = [];
  let stored = 0;
  for (const n of sizes.instances) {
    // Through the service's own PUT, 16 at a time (each a new instance, its own quota ledger).
    const first = stored;
    const setup = await measure(() =>
      run(n, 16, (k) => call("queueEndpoints-put", ...endpoint(first + k), secrets)),
    );
    stored += n;
    const rounds: Cost[] = [];
    for (let round = 0; round < sizes.rounds; round++) {
      const texts = Array.from({ length: sizes.events }, (_, e) => message(first + (e % n)));
      const deliver = (e: number) => app.invokeQueue("twinEvents-deliver", texts[e] ?? "");
      rounds.push(await measure(() => run(texts.length, HOST_CONCURRENCY, deliver)));
    }
    const listOne: Cost[] = [];
    for (let k = 0; k < sizes.listRounds; k++) {
      const url = `${instancePath(first)}/endpoints`;
      listOne.push(await measure(() => call("queueEndpoints-list", url, params(first))));
    }
    instances.push({ instances: n, setup, cold: rounds[0] as Cost, warm: rounds.slice(1), stored, listOne });
  }
  const lists: ListPoint[] = [];
  let profiles = 0;
  for (const items of [...sizes.listItems].sort((a, b) => a - b)) {
    // One at a time: every profile shares one partition and one quota ledger.
    for (; profiles < Math.min(items, QUOTA_BOUNDS.AUTH_PROFILE_MAX_COUNT); profiles++) {
      const name = `p${String(profiles).padStart(5, "0")}`;
      const body = { authenticationProfileContent: JSON.stringify({ Client_ID: name, App_ID: "scale" }) };
      const [url, names] = [`/authenticationProfiles/${name}`, { authenticationProfileName: name }];
      await call("authenticationProfiles-put", url, names, body);
    }
    const point: ListPoint = { items: profiles, lists: [] };
    for (let k = 0; k < sizes.listRounds; k++) {
      const pages: (Cost & { items: number })[] = [];
      for (let url: string | undefined = "/authenticationProfiles"; url !== undefined; ) {
        let answer: Answer = {};
        const at = url;
        const figure = await measure(
          async () => (answer = await call("authenticationProfiles-list", at, {})),
        );
        pages.push({ ...figure, items: answer.value?.length ?? 0 });
        url = answer.nextLink?.slice(new URL(answer.nextLink).origin.length);
      }
      point.lists.push(pages);
    }
    lists.push(point);
  }
  return { sizes, cacheSeconds: loadConfig(process.env).ENDPOINT_CACHE_SECONDS, instances, lists };
}

function exit(code: number, text: string): never {
  writeSync(code === 0 ? 1 : 2, text);
  process.exit(code);
}

child(JSON.parse(process.argv[2] ?? "{}")).then(
  (result) => exit(0, `\n${JSON.stringify(result)}\n`),
  (error: Error) => exit(1, `${error.stack}\n`),
);
