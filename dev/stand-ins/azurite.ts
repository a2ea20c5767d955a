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
  /**
   * A third process: blob over HTTPS with OAuth (`--oauth basic`), for identity-based access with
   * the managed-identity stand-in's tokens; SharedKey and SAS still work on it. Its storage is its
   * own. The PEM file holds the key and the certificate (dev/local-tls.ts).
   */
  blobTls?: { port: number; keyPairFile: string };
}

export interface RunningAzurite {
  connectionString: string;
  blobEndpoint: string;
  queueEndpoint: string;
  /** `https://localhost:{port}/devstoreaccount1`, when the HTTPS blob service runs. */
  blobTlsEndpoint: string | undefined;
  /** blob, queue, then the HTTPS blob service when it runs. */
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
  const launch = (
    service: "blob" | "queue",
    portFlag: string,
    hostFlag: string,
    port: number,
    extra: string[] = [],
    folder: string = service,
  ) =>
    spawn(
      process.execPath,
      [
        azuriteScript(service),
        hostFlag,
        "127.0.0.1",
        portFlag,
        String(port),
        ...storage(folder),
        ...common,
        ...extra,
      ],
      // Through NODE_OPTIONS, not the command line: the process is still named by Azurite's script.
      { stdio: options.stdio ?? "inherit", env: { ...process.env, NODE_OPTIONS: preloadOption() } },
    );
  const processes = [
    launch("blob", "--blobPort", "--blobHost", options.blobPort),
    launch("queue", "--queuePort", "--queueHost", options.queuePort),
  ];
  const { blobTls } = options;
  if (blobTls) {
    // Azurite's "basic" OAuth checks a bearer token's issuer (https://sts.windows.net/…), audience
    // (storage) and lifetime, not its signature: enough for the managed-identity stand-in's tokens.
    const https = ["--cert", blobTls.keyPairFile, "--key", blobTls.keyPairFile, "--oauth", "basic"];
    processes.push(launch("blob", "--blobPort", "--blobHost", blobTls.port, https, "blob-https"));
  }
  const stop = async () => {
    await Promise.all(processes.map(stopProcess));
  };
  try {
    await Promise.all(
      [options.blobPort, options.queuePort, ...(blobTls ? [blobTls.port] : [])].map((port) =>
        waitForPort(port),
      ),
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    connectionString: devConnectionString(options.blobPort, options.queuePort),
    blobEndpoint: `http://127.0.0.1:${options.blobPort}/${DEV_ACCOUNT}`,
    queueEndpoint: `http://127.0.0.1:${options.queuePort}/${DEV_ACCOUNT}`,
    blobTlsEndpoint: blobTls && `https://localhost:${blobTls.port}/${DEV_ACCOUNT}`,
    processes,
    stop,
  };
}
