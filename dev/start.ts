import { writeLocalEnvFile } from "./local-env-file";
import { ensureLocalSecretsKey } from "./local-secrets-key";
import { loadLocalSettings } from "./local-settings";
import { DEVELOPER_TOKEN_HOURS } from "./local-token";
import { LocalStack } from "./stack";
import { ensureHttpsDeadLetterContainer } from "./stand-ins/azurite-https";
import { LOCAL_DEAD_LETTER_CONTAINER, localDeadLetterSasUrl } from "./stand-ins/dead-letter-sas";
import { DEVELOPER } from "./stand-ins/openid-issuer";
import { describeFailure } from "./startup-error";
import { formatSummary } from "./summary";

/**
 * `npm start`: the local stack with every part a child process, on the configured ports, its data
 * in LOCAL_DATA_DIR; a summary once /health answers 200. Ctrl+C / SIGTERM stops every child, and
 * all of them stop if one dies.
 */
const stack = new LocalStack({
  persistent: true,
  host: true,
  onUnexpectedExit: (name, how) =>
    void shutdown(1, `${name} stopped unexpectedly (${how}); stopping the others.`),
});

let exiting: Promise<void> | undefined;

/** Stops the children (host first), then exits; only the first call counts. */
function shutdown(code: number, message: string): Promise<void> {
  exiting ??= (async () => {
    (code === 0 ? console.log : console.error)(message);
    const outcomes = await stack.stop();
    // After a requested stop, a child that failed to stop cleanly is news.
    const unclean = code === 0 ? outcomes.filter((outcome) => !outcome.clean) : [];
    for (const outcome of unclean) console.error(`${outcome.name} ${outcome.description}.`);
    process.exit(unclean.length > 0 ? 1 : code);
  })();
  return exiting;
}

async function run(): Promise<void> {
  const { file, values } = loadLocalSettings(process.env);
  const secretsKey = ensureLocalSecretsKey(values);
  const { plan, issuer } = await stack.start(values);
  // Dead letters into Azurite (SAS URL, and the HTTPS container for identity-based endpoints), when it is the storage.
  const [deadLetterUrl] = plan.azurite
    ? await Promise.all([
        localDeadLetterSasUrl(plan.azurite.blobEndpoint, LOCAL_DEAD_LETTER_CONTAINER),
        ensureHttpsDeadLetterContainer(plan.azurite.blobTlsEndpoint, plan.identity.certFile),
      ])
    : [undefined];
  // The README's examples call as the developer, an administrator of the local stack.
  const token = await issuer?.mint({ name: DEVELOPER, lifetimeSeconds: DEVELOPER_TOKEN_HOURS * 3600 });
  const envFile = writeLocalEnvFile(plan, deadLetterUrl, token);
  console.log(formatSummary(plan, file, secretsKey, deadLetterUrl, envFile));
}

process.on("SIGINT", () => void shutdown(0, "Stopping the local stack..."));
process.on("SIGTERM", () => void shutdown(0, "Stopping the local stack..."));
// `npm start` runs this under `sh -c`: `kill -TERM <npm pid>` ends npm and the shell but never
// reaches this process, which would keep the stack running with no one to stop it. A re-parented
// process has a new ppid.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent)
    void shutdown(0, "The process that started the launcher is gone; stopping the local stack...");
}, 1000).unref();
process.on("uncaughtException", (error) => void shutdown(1, describeFailure(error)));

run().catch((error: unknown) => shutdown(1, describeFailure(error)));
