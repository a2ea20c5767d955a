import * as path from "node:path";
import { loadConfig } from "../src/config";
import { ensureDatabase } from "./ensure-database";
import { ensureLocalSecretsKey } from "./local-secrets-key";
import { loadLocalSettings } from "./local-settings";
import { watchParent } from "./parent-watch";
import { assertPortFree } from "./ports";
import { planStack } from "./stack-plan";
import { LOCAL_DEAD_LETTER_CONTAINER, localDeadLetterSasUrl } from "./stand-ins/dead-letter-sas";
import { describeFailure } from "./startup-error";
import { formatSummary } from "./summary";
import { type ChildSpec, Supervisor } from "./supervisor";
import { waitForHealthy } from "./wait-for-health";

/**
 * What `npm start` runs: a stand-in for every backing service that is not configured, the local
 * Functions host, and a summary once /health answers 200. Stops every child on Ctrl+C / SIGTERM,
 * and all of them if one dies.
 */
const READY_TIMEOUT_MS = 60_000;

function child(name: string, script: string, env: NodeJS.ProcessEnv, stopTimeoutMs: number): ChildSpec {
  return { name, script: path.join(__dirname, script), env, readyTimeoutMs: READY_TIMEOUT_MS, stopTimeoutMs };
}

const supervisor = new Supervisor((name, how) => {
  void shutdown(1, `${name} stopped unexpectedly (${how}); stopping the others.`);
});

let exiting: Promise<void> | undefined;

/** Stops the children (host first, stand-ins after), then exits; only the first call counts. */
function shutdown(code: number, message: string): Promise<void> {
  exiting ??= (async () => {
    if (code === 0) console.log(message);
    else console.error(message);
    const outcomes = await supervisor.stopAll();
    // After a requested stop, a child that failed to stop cleanly (say, its snapshot failed) is news.
    const unclean = code === 0 ? outcomes.filter((outcome) => !outcome.clean) : [];
    for (const outcome of unclean) console.error(`${outcome.name} ${outcome.description}.`);
    process.exit(unclean.length > 0 ? 1 : code);
  })();
  return exiting;
}

async function run(): Promise<void> {
  const { file, values } = loadLocalSettings(process.env);
  const secretsKey = ensureLocalSecretsKey(values);
  const plan = planStack(values);
  // Everything is known before anything starts: a bad setting or a busy port costs no start-up.
  const config = loadConfig(plan.settings);
  for (const { port, variable } of plan.ports) await assertPortFree(port, variable);

  if (plan.azurite) await supervisor.start(child("Azurite", "azurite-main.js", plan.settings, 10_000));
  // The Cosmos server snapshots on the way down: give it time.
  if (plan.cosmos)
    await supervisor.start(child("Cosmos DB server", "cosmos-server-main.js", plan.settings, 30_000));
  await supervisor.start(
    child("Service Bus stand-in", path.join("stand-ins", "service-bus", "main.js"), plan.settings, 10_000),
  );
  await ensureDatabase(config);
  // Endpoints can dead-letter into Azurite with this URL (only when Azurite is the storage).
  const deadLetterUrl = plan.azurite
    ? await localDeadLetterSasUrl(plan.azurite.blobEndpoint, LOCAL_DEAD_LETTER_CONTAINER)
    : undefined;
  await supervisor.start(child("Functions host", "local-host-main.js", plan.settings, 10_000));
  await waitForHealthy(plan.host.url, READY_TIMEOUT_MS);
  console.log(formatSummary(plan, file, secretsKey, deadLetterUrl));
}

process.on("SIGINT", () => void shutdown(0, "Stopping the local stack..."));
process.on("SIGTERM", () => void shutdown(0, "Stopping the local stack..."));
watchParent(
  () => void shutdown(0, "The process that started the launcher is gone; stopping the local stack..."),
);
process.on("uncaughtException", (error) => void shutdown(1, describeFailure(error)));
// Last resort if the launcher exits some other way: no child may outlive it.
process.on("exit", () => supervisor.killAll());

run().catch((error: unknown) => shutdown(1, describeFailure(error)));
