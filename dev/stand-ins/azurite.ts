import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import * as path from "node:path";
import { projectRoot } from "../local-paths";
import { waitForPort } from "../ports";

/** Azurite's published development account; a well-known key, not a secret. */
export const DEV_ACCOUNT = "devstoreaccount1";
export const DEV_ACCOUNT_KEY =
  "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

export interface AzuriteOptions {
  blobPort: number;
  queuePort: number;
  /** Where Azurite keeps its data; in memory when absent. */
  location?: string;
  /** Where Azurite's own output goes; inherited when absent. */
  stdio?: "inherit" | "ignore";
}

export interface RunningAzurite {
  connectionString: string;
  blobEndpoint: string;
  queueEndpoint: string;
  processes: ChildProcess[];
  stop(): Promise<void>;
}

export function devConnectionString(blobPort: number, queuePort: number): string {
  return [
    "DefaultEndpointsProtocol=http",
    `AccountName=${DEV_ACCOUNT}`,
    `AccountKey=${DEV_ACCOUNT_KEY}`,
    `BlobEndpoint=http://127.0.0.1:${blobPort}/${DEV_ACCOUNT}`,
    `QueueEndpoint=http://127.0.0.1:${queuePort}/${DEV_ACCOUNT}`,
  ].join(";");
}

function azuriteScript(service: "blob" | "queue"): string {
  return path.join(path.dirname(require.resolve("azurite/package.json")), "dist", "src", service, "main.js");
}

/** Run before Azurite in its processes (built: children run compiled, also when this runs from source). */
function preloadScript(): string {
  const builtDir = __filename.endsWith(".js")
    ? __dirname
    : path.join(projectRoot(), "dist", "dev", "stand-ins");
  return path.join(builtDir, "azurite-preload.js");
}

function preloadOption(): string {
  return `${process.env.NODE_OPTIONS ?? ""} --require ${JSON.stringify(preloadScript())}`.trim();
}

function stopProcess(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/**
 * Starts Azurite's blob and queue services as child processes and waits until both listen, each
 * with its extent garbage collection made cheap (azurite-extent-gc.ts): as Azurite ships, it
 * stops answering for seconds once thousands of queue messages have come and gone in a minute.
 */
export async function startAzurite(options: AzuriteOptions): Promise<RunningAzurite> {
  const common = ["--silent", "--skipApiVersionCheck", "--loose", "--disableTelemetry"];
  const storage = (service: string) => {
    if (options.location === undefined) return ["--inMemoryPersistence"];
    const location = path.join(options.location, service);
    mkdirSync(location, { recursive: true });
    return ["--location", location];
  };
  const launch = (service: "blob" | "queue", portFlag: string, hostFlag: string, port: number) =>
    spawn(
      process.execPath,
      [azuriteScript(service), hostFlag, "127.0.0.1", portFlag, String(port), ...storage(service), ...common],
      // Through NODE_OPTIONS, not the command line: the process is still named by Azurite's script.
      { stdio: options.stdio ?? "inherit", env: { ...process.env, NODE_OPTIONS: preloadOption() } },
    );
  const processes = [
    launch("blob", "--blobPort", "--blobHost", options.blobPort),
    launch("queue", "--queuePort", "--queueHost", options.queuePort),
  ];
  const stop = async () => {
    await Promise.all(processes.map(stopProcess));
  };
  try {
    await Promise.all([waitForPort(options.blobPort), waitForPort(options.queuePort)]);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    connectionString: devConnectionString(options.blobPort, options.queuePort),
    blobEndpoint: `http://127.0.0.1:${options.blobPort}/${DEV_ACCOUNT}`,
    queueEndpoint: `http://127.0.0.1:${options.queuePort}/${DEV_ACCOUNT}`,
    processes,
    stop,
  };
}
