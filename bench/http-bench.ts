import type { Container } from "@azure/cosmos";
import type { ProfileDocument } from "../src/profiles/profile-service";
import { CONTAINERS } from "../src/store/containers";
import { type RunFigure, runConcurrent, withBusy } from "./concurrent";
import { runHttpJob } from "./http-driver";
import { BENCH_FUNCTION_KEY, type BenchStack } from "./local-stack";

export interface HttpBenchSizes {
  /** Requests per GET and per PUT-replace measurement. */
  requests: number;
  /** Profiles created through HTTP (and documents upserted raw) for the create measurement. */
  creates: number;
  concurrency: number;
  /** GET and PUT-replace alternate raw and HTTP this many times; the best of each counts. */
  rounds: number;
}

/** One operation through the host next to the raw SDK doing the same to the same Cosmos server. */
export interface HttpPair {
  label: string;
  concurrency: number;
  http: RunFigure;
  raw: RunFigure;
}

const CONTENT = JSON.stringify({ AllowDBUserOverride: "1", Client_ID: "ExampleClientID", App_ID: "bench" });

/** The document ProfileService stores for a profile, so raw writes are the same size and shape. */
function profileDocument(name: string): ProfileDocument {
  const now = new Date().toISOString();
  return {
    id: name.toLowerCase(),
    scope: "account",
    authenticationProfileName: name,
    authenticationProfileContent: CONTENT,
    createdAt: now,
    updatedAt: now,
  };
}

function best(figures: RunFigure[]): RunFigure {
  return figures.reduce((a, b) => (b.perSecond > a.perSecond ? b : a));
}

/** Names `${prefix}${index}`, or `${prefix}${index % modulo}` to cycle through existing ones. */
interface Names {
  prefix: string;
  modulo?: number;
}

function nameOf(names: Names, index: number): string {
  return `${names.prefix}${names.modulo === undefined ? index : index % names.modulo}`;
}

class ProfileBench {
  private readonly container: Container;

  constructor(
    private readonly stack: BenchStack,
    private readonly concurrency: number,
  ) {
    // The host's own client (services.cosmos): same connection pool, same server.
    this.container = stack.services.database.container(CONTAINERS.profiles.id);
  }

  httpPut(names: Names, count: number, expected: number, concurrency = this.concurrency): Promise<RunFigure> {
    return runHttpJob({
      baseUrl: this.stack.baseUrl,
      method: "PUT",
      pathPrefix: `/authenticationProfiles/${names.prefix}`,
      ...(names.modulo !== undefined && { modulo: names.modulo }),
      count,
      concurrency,
      headers: { "x-functions-key": BENCH_FUNCTION_KEY, "content-type": "application/json" },
      body: JSON.stringify({ authenticationProfileContent: CONTENT }),
      expected,
    });
  }

  httpGet(names: Names, count: number): Promise<RunFigure> {
    return runHttpJob({
      baseUrl: this.stack.baseUrl,
      method: "GET",
      pathPrefix: `/authenticationProfiles/${names.prefix}`,
      ...(names.modulo !== undefined && { modulo: names.modulo }),
      count,
      concurrency: this.concurrency,
      headers: { "x-functions-key": BENCH_FUNCTION_KEY },
      expected: 200,
    });
  }

  rawUpsert(names: Names, count: number, concurrency = this.concurrency): Promise<RunFigure> {
    return withBusy(() =>
      runConcurrent(count, concurrency, async (index) => {
        const { statusCode } = await this.container.items.upsert(profileDocument(nameOf(names, index)));
        return statusCode === 200 || statusCode === 201 ? undefined : String(statusCode);
      }),
    );
  }

  rawRead(names: Names, count: number): Promise<RunFigure> {
    return withBusy(() =>
      runConcurrent(count, this.concurrency, async (index) => {
        const id = nameOf(names, index).toLowerCase();
        const { statusCode } = await this.container.item(id, "account").read();
        return statusCode === 200 ? undefined : String(statusCode);
      }),
    );
  }
}

/**
 * AuthenticationProfile PUT and GET through the local host (HTTP, keys, validation, the service
 * and its conditional writes) next to raw SDK point reads and upserts of the same documents
 * through the host's own Cosmos client, in the same run. The HTTP clients run on a worker thread,
 * the raw SDK calls on the host's thread. Creates cannot touch the same documents twice, so raw
 * creates write fresh documents of the same shape; reads and replaces use the very documents the
 * HTTP creates made.
 */
export async function benchHttp(stack: BenchStack, sizes: HttpBenchSizes): Promise<HttpPair[]> {
  const bench = new ProfileBench(stack, sizes.concurrency);
  // Warm-up: JIT, connection pools, the quota ledger document.
  await bench.httpPut({ prefix: "warm-" }, 50, 201);
  await bench.httpGet({ prefix: "warm-", modulo: 50 }, 200);
  await bench.rawRead({ prefix: "warm-", modulo: 50 }, 200);
  await bench.rawUpsert({ prefix: "warm-raw-" }, 300);

  // Creates, once each: every HTTP create also reserves its name in the quota ledger.
  const rawCreate = await bench.rawUpsert({ prefix: "raw-" }, sizes.creates);
  const httpCreate = await bench.httpPut({ prefix: "bench-" }, sizes.creates, 201);
  // The same with one client: what a create costs without racing other creates for the ledger.
  const serialCount = Math.max(1, Math.floor(sizes.creates / 2));
  const rawSerial = await bench.rawUpsert({ prefix: "raw-serial-" }, serialCount, 1);
  const httpSerial = await bench.httpPut({ prefix: "serial-" }, serialCount, 201, 1);

  // Reads and replaces of the profiles just created, alternating raw and HTTP.
  const existing: Names = { prefix: "bench-", modulo: sizes.creates };
  const gets: { http: RunFigure[]; raw: RunFigure[] } = { http: [], raw: [] };
  const replaces: { http: RunFigure[]; raw: RunFigure[] } = { http: [], raw: [] };
  for (let round = 0; round < sizes.rounds; round++) {
    gets.raw.push(await bench.rawRead(existing, sizes.requests));
    gets.http.push(await bench.httpGet(existing, sizes.requests));
    replaces.raw.push(await bench.rawUpsert(existing, sizes.requests));
    replaces.http.push(await bench.httpPut(existing, sizes.requests, 200));
  }
  return [
    { label: "GET", concurrency: sizes.concurrency, http: best(gets.http), raw: best(gets.raw) },
    {
      label: "PUT replace",
      concurrency: sizes.concurrency,
      http: best(replaces.http),
      raw: best(replaces.raw),
    },
    { label: "PUT create", concurrency: sizes.concurrency, http: httpCreate, raw: rawCreate },
    { label: "PUT create", concurrency: 1, http: httpSerial, raw: rawSerial },
  ];
}
