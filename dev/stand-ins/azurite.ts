import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import * as path from "node:path";
import { projectRoot } from "../local-paths";
import { waitForPort } from "../ports";

/** Azurite's published development account; a well-known key, not a secret. */
export const DEV_ACCOUNT = "devstoreaccount1";
export const DEV_ACCOUNT_KEY =
  "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

export interface RunningAzurite {
  connectionString: string;
  blobEndpoint: string;
  /** `https://localhost:{port}/devstoreaccount1`, when the HTTPS blob service runs. */
  blobTlsEndpoint: string | undefined;
  /** blob, queue, then the HTTPS blob service when it runs. */
  processes: ChildProcess[];
  stop(): Promise<void>;
}

const endpoint = (port: number) => `http://127.0.0.1:${port}/${DEV_ACCOUNT}`;

export function devConnectionString(blobPort: number, queuePort: number): string {
  return [
    "DefaultEndpointsProtocol=http",
    `AccountName=${DEV_ACCOUNT}`,
    `AccountKey=${DEV_ACCOUNT_KEY}`,
    `BlobEndpoint=${endpoint(blobPort)}`,
    `QueueEndpoint=${endpoint(queuePort)}`,
  ].join(";");
}

/** Run before Azurite in its processes (built: children run compiled, also when this runs from source). */
function preloadScript(): string {
  const builtDir = __filename.endsWith(".js")
    ? __dirname
    : path.join(projectRoot(), "dist", "dev", "stand-ins");
  return path.join(builtDir, "azurite-preload.js");
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
 * Blob over HTTPS with OAuth (`--oauth basic`) runs as a third process when `blobTls` is given, for
 * the managed-identity stand-in's tokens (SharedKey and SAS still work on it); its storage is its
 * own. The PEM file holds the key and the certificate (dev/local-tls.ts). Data in memory without a
 * `location`.
 */
export async function startAzurite(options: {
  blobPort: number;
  queuePort: number;
  location?: string;
  stdio?: "inherit" | "ignore";
  blobTls?: { port: number; keyPairFile: string };
}): Promise<RunningAzurite> {
  const azurite = path.join(path.dirname(require.resolve("azurite/package.json")), "dist", "src");
  // Through NODE_OPTIONS, not the command line: the process is still named by Azurite's script.
  const nodeOptions = `${process.env.NODE_OPTIONS ?? ""} --require ${JSON.stringify(preloadScript())}`.trim();
  const flags = ["--silent", "--skipApiVersionCheck", "--loose", "--disableTelemetry"];
  const launch = (service: "blob" | "queue", port: number, extra: string[] = [], folder = `${service}`) => {
    const location = options.location && path.join(options.location, folder);
    if (location) mkdirSync(location, { recursive: true });
    const storage = location ? ["--location", location] : ["--inMemoryPersistence"];
    const where = [`--${service}Host`, "127.0.0.1", `--${service}Port`, String(port)];
    return spawn(
      process.execPath,
      [path.join(azurite, service, "main.js"), ...where, ...storage, ...flags, ...extra],
      {
        stdio: options.stdio ?? "inherit",
        env: { ...process.env, NODE_OPTIONS: nodeOptions },
      },
    );
  };
  const { blobPort, queuePort, blobTls } = options;
  const processes = [launch("blob", blobPort), launch("queue", queuePort)];
  if (blobTls) {
    // Azurite's "basic" OAuth checks a bearer token's issuer (https://sts.windows.net/…), audience
    // (storage) and lifetime, not its signature: enough for the managed-identity stand-in's tokens.
    const https = ["--cert", blobTls.keyPairFile, "--key", blobTls.keyPairFile, "--oauth", "basic"];
    processes.push(launch("blob", blobTls.port, https, "blob-https"));
  }
  const stop = async () => {
    await Promise.all(processes.map(stopProcess));
  };
  try {
    await Promise.all(
      [blobPort, queuePort, ...(blobTls ? [blobTls.port] : [])].map((port) => waitForPort(port)),
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    connectionString: devConnectionString(blobPort, queuePort),
    blobEndpoint: endpoint(blobPort),
    blobTlsEndpoint: blobTls && `https://localhost:${blobTls.port}/${DEV_ACCOUNT}`,
    processes,
    stop,
  };
}
