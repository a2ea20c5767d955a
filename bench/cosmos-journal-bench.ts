import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import * as https from "node:https";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { type Container, CosmosClient } from "@azure/cosmos";
import { localDataDir } from "../dev/local-paths";
import { freePort } from "../dev/ports";
import { COSMOS_EMULATOR_KEY } from "../dev/stand-ins/cosmos-server";
import { formatRange, type Rounds, roundErrors, runRounds } from "./rounds";

/**
 * The cost of the local Cosmos server's journal (every write on disk before its answer): the same
 * server as `npm start` runs it (dist/dev/cosmos-server-main.js, a process of its own) with its
 * data folder, next to one with LOCAL_DATA_IN_MEMORY=true (no journal, nothing on disk). Both are
 * driven alike through @azure/cosmos, in turns within each round, so both see the same load.
 */

export type StoreKind = "journal" | "memory";

export interface CosmosWriteFigure {
  store: StoreKind;
  concurrency: number;
  writesPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

interface Server {
  child: ChildProcess;
  container: Container;
  client: CosmosClient;
}

async function startServer(kind: StoreKind, dir: string): Promise<Server> {
  const port = await freePort();
  const script = path.join(__dirname, "..", "dev", "cosmos-server-main.js");
  const child = spawn(process.execPath, [script], {
    env: {
      ...process.env,
      COSMOS_PORT: String(port),
      LOCAL_DATA_DIR: dir,
      LOCAL_DATA_IN_MEMORY: kind === "memory" ? "true" : "",
    },
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  await new Promise<void>((resolve, reject) => {
    child.once("message", () => resolve());
    child.once("exit", (code) => reject(new Error(`the Cosmos server (${kind}) exited with ${code}`)));
  });
  const client = new CosmosClient({
    endpoint: `https://127.0.0.1:${port}/`,
    key: COSMOS_EMULATOR_KEY,
    agent: new https.Agent({ rejectUnauthorized: false, keepAlive: true }),
  });
  const { database } = await client.databases.createIfNotExists({ id: "bench" });
  const { container } = await database.containers.createIfNotExists({
    id: "writes",
    partitionKey: { paths: ["/id"] },
  });
  return { child, container, client };
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

/** `writes` creates of ~300-byte documents, `concurrency` at a time; latency is each create's round trip. */
async function measure(server: Server, writes: number, concurrency: number, tag: string) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < writes) {
        const id = `${tag}-${next++}`;
        const before = performance.now();
        await server.container.items.create({ id, tenant: "bench", body: "x".repeat(256) });
        latencies.push(performance.now() - before);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    writesPerSecond: writes / seconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
  };
}

export async function benchCosmosJournal(options: {
  writes: number;
  concurrencies: number[];
  rounds: number;
}): Promise<Rounds<CosmosWriteFigure[]>> {
  // On the disk `npm start` keeps its data on (LOCAL_DATA_DIR, else .local), not a RAM-backed /tmp.
  mkdirSync(localDataDir(process.env), { recursive: true });
  const dir = mkdtempSync(path.join(localDataDir(process.env), "bench-cosmos-journal-"));
  const servers: Partial<Record<StoreKind, Server>> = {};
  try {
    servers.journal = await startServer("journal", dir);
    servers.memory = await startServer("memory", dir);
    const running = servers as Record<StoreKind, Server>;
    // A warm-up on each, so neither pays for the first TLS handshakes and JIT in a round.
    for (const kind of ["journal", "memory"] as const) await measure(running[kind], 200, 8, "warm");
    return await runRounds(options.rounds, async (round) => {
      const figures: CosmosWriteFigure[] = [];
      for (const concurrency of options.concurrencies) {
        // Alternate which goes first, so neither always runs on the other's leftovers.
        const order: StoreKind[] = round % 2 === 0 ? ["journal", "memory"] : ["memory", "journal"];
        for (const store of order) {
          const result = await measure(
            running[store],
            options.writes,
            concurrency,
            `r${round}-c${concurrency}`,
          );
          figures.push({ store, concurrency, ...result });
        }
      }
      return figures;
    });
  } finally {
    for (const server of Object.values(servers)) {
      server.client.dispose();
      server.child.kill("SIGKILL");
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

export function printCosmosJournal(rounds: Rounds<CosmosWriteFigure[]>, concurrencies: number[]): void {
  const whole = (value: number) => Math.round(value).toLocaleString("en-US");
  const ms = (value: number) => value.toFixed(1);
  const cell = (text: string, width: number) => text.padEnd(width);
  console.log("");
  console.log(
    `  ${cell("in flight", 10)}${cell("store", 9)}${cell("writes/s", 18)}${cell("p50 ms", 14)}${cell("p99 ms", 14)}journal / memory`,
  );
  for (const concurrency of concurrencies) {
    const pick = (store: StoreKind) =>
      rounds.values.map((figures) => figures.find((f) => f.store === store && f.concurrency === concurrency));
    const ratios = pick("journal").map(
      (journal, index) =>
        (journal?.writesPerSecond ?? Number.NaN) / (pick("memory")[index]?.writesPerSecond ?? Number.NaN),
    );
    for (const store of ["journal", "memory"] as const) {
      const figures = pick(store).filter((figure) => figure !== undefined);
      console.log(
        `  ${cell(String(concurrency), 10)}${cell(store, 9)}${cell(
          formatRange(
            figures.map((f) => f.writesPerSecond),
            whole,
          ),
          18,
        )}${cell(
          formatRange(
            figures.map((f) => f.p50Ms),
            ms,
          ),
          14,
        )}${cell(
          formatRange(
            figures.map((f) => f.p99Ms),
            ms,
          ),
          14,
        )}${store === "journal" ? formatRange(ratios, (v) => v.toFixed(2)) : ""}`,
      );
    }
  }
  for (const line of roundErrors("cosmos", rounds)) console.log(line);
}
