// Makes the deployed app pick up its Key Vault references: azd's postdeploy hook (azure.yaml).
//
// Why: the app resolves SECRETS_ENCRYPTION_KEY, a Key Vault reference, with its identity's Key
// Vault Secrets User role. On a first deployment that role may not be in force yet when the app
// first starts (Azure RBAC can take minutes to apply a new assignment); App Service then hands the
// app the reference text itself, and does not fetch it again for up to a day. The app runs without
// the key meanwhile (GET /health names the setting; what needs the key answers 503; delivery waits),
// so this asks the platform to fetch the references again, and restarts the app if that is not
// enough, until /health no longer reports the key missing, or gives up after a few minutes.
// An app that already has its key is left alone: no refresh, no restart.
//
// Needs the Azure CLI, signed in (`az login`) to the subscription azd deploys to; azd passes the
// environment's values (AZURE_SUBSCRIPTION_ID, AZURE_RESOURCE_GROUP, AZURE_FUNCTION_APP_NAME,
// SERVICE_API_URI) as environment variables. `az rest` with a path reaches the Resource Manager of
// the CLI's current cloud, so this works in the sovereign clouds too.
//
// Usage: node infra/scripts/refresh-key-vault-references.js   (exit 1: not resolved; it says why)

const { execFileSync } = require("node:child_process");

const API_VERSION = "2022-03-01";
/** Rounds of refresh (then restart) and wait, and how long each waits for the app to take it. */
const ROUNDS = 6;
const WAIT_MS = 30_000;
const HEALTH_TIMEOUT_MS = 60_000;

/** The Resource Manager path of the app's reference refresh (POST), from azd's environment values. */
function refreshPath(env) {
  const missing = ["AZURE_SUBSCRIPTION_ID", "AZURE_RESOURCE_GROUP", "AZURE_FUNCTION_APP_NAME"].filter(
    (name) => !env[name],
  );
  if (missing.length > 0) throw new Error(`${missing.join(", ")} not set: run this through azd (azd deploy)`);
  const site = `/subscriptions/${env.AZURE_SUBSCRIPTION_ID}/resourceGroups/${env.AZURE_RESOURCE_GROUP}/providers/Microsoft.Web/sites/${env.AZURE_FUNCTION_APP_NAME}`;
  return `${site}/config/configreferences/appsettings/refresh?api-version=${API_VERSION}`;
}

/**
 * What /health says of the secrets: "pending" with the reason while a key setting is an unresolved
 * reference (src/health/health-check.ts), "ok" when the report has no secrets check, "unknown" when
 * the answer is no health report (the app still starting).
 */
function secretsState(body) {
  if (typeof body !== "object" || body === null || typeof body.checks !== "object" || body.checks === null)
    return { state: "unknown" };
  if (body.checks.secrets === undefined) return { state: "ok" };
  return {
    state: "pending",
    reason: body.reasons?.secrets || "the encryption key is missing",
  };
}

async function readHealth(baseUrl) {
  try {
    const response = await fetch(`${baseUrl.replace(/\/$/, "")}/health`, {
      signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS),
    });
    return secretsState(await response.json());
  } catch {
    return { state: "unknown" };
  }
}

function az(args) {
  // az is az.cmd on Windows, which Node only spawns through a shell.
  execFileSync("az", args, { stdio: ["ignore", "ignore", "inherit"], shell: process.platform === "win32" });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(env = process.env) {
  const path = refreshPath(env);
  if (!env.SERVICE_API_URI) throw new Error("SERVICE_API_URI not set: run this through azd (azd deploy)");
  for (let round = 1; round <= ROUNDS; round++) {
    const health = await readHealth(env.SERVICE_API_URI);
    if (health.state === "ok") {
      console.log("The app has its Key Vault references (GET /health reports no missing secret).");
      return;
    }
    if (health.state === "pending") console.log(`GET /health: ${health.reason}.`);
    // Fetch the references again; from the second round on, restart the app as well.
    console.log(`Refreshing the app's Key Vault references (round ${round} of ${ROUNDS})...`);
    az(["rest", "--method", "post", "--url", path, "--output", "none"]);
    if (round > 1)
      az(["functionapp", "restart", "-g", env.AZURE_RESOURCE_GROUP, "-n", env.AZURE_FUNCTION_APP_NAME]);
    await sleep(WAIT_MS);
  }
  throw new Error(
    "the app still lacks its Key Vault references. It runs without them (GET /health says which); " +
      "run this script again later, or see infra/README.md (A first deployment and Key Vault)",
  );
}

module.exports = { refreshPath, secretsState };

if (require.main === module) {
  main().catch((error) => {
    const reason = error?.code === "ENOENT" ? "the Azure CLI (az) is not installed" : error.message;
    console.error(`Key Vault references not refreshed: ${reason}.`);
    process.exit(1);
  });
}
