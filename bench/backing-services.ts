import { spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { projectRoot } from "../dev/local-paths";
import { ensureDatabase, startStack } from "../dev/stack";
import { loadConfig } from "../src/config";

/** What the bench parts that run the app in a process of its own share: its backing services and a child runner. */

const FUNCTION_KEY = "bench-function-key";

/** The Cosmos server and Azurite (children, in memory), a fresh database, and the settings to reach them. */
export async function startBackingServices(): Promise<{
  settings: Record<string, string>;
  stop(): Promise<void>;
}> {
  const stack = await startStack(
    {
      FUNCTION_KEY,
      MASTER_KEY: `${FUNCTION_KEY}-master`,
      // The bench calls with the function key (no local issuer runs).
      AUTH_MODE: "keys",
      COSMOS_DATABASE: `bench-${randomUUID().slice(0, 8)}`,
      SECRETS_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    },
    { persistent: false, host: false },
  );
  try {
    const settings = Object.fromEntries(
      Object.entries(stack.plan.settings).filter(
        (entry): entry is [string, string] => entry[1] !== undefined,
      ),
    );
    await ensureDatabase(loadConfig(settings));
    return { settings, stop: async () => void (await stack.stop()) };
  } catch (error) {
    await stack.stop();
    throw error;
  }
}

/** Runs a child to its end; its stdout, or an error with the end of its stderr. */
export function runChild(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env,
      cwd: projectRoot(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", reject);
    child.once("close", (code, signal) => {
      if (code === 0) resolve(stdout);
      else
        reject(
          new Error(`exited with ${signal ?? code}: ${stderr.trim().split("\n").slice(-3).join(" | ")}`),
        );
    });
  });
}

export interface NodeFloorRound {
  ms: number;
  rssMb: number;
}

/** fs.writeSync, not process.stdout: Node makes its stdout stream on first use, 20 ms and more here. */
const NODE_FLOOR_SCRIPT = 'require("node:fs").writeSync(1, String(process.memoryUsage().rss))';

/** A `node -e` that loads nothing: the floor a package's load is compared with. */
export async function measureNodeFloor(): Promise<NodeFloorRound> {
  const start = performance.now();
  const out = await runChild(["-e", NODE_FLOOR_SCRIPT], process.env);
  return { ms: performance.now() - start, rssMb: Number(out) / 1048576 };
}
