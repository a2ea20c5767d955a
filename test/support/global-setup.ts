import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { extraCaCertsFile, loadOrCreateLocalTls } from "../../dev/local-tls";
import { startStack } from "../../dev/stack";
import { buildProject } from "./build-once";
import { FUNCTION_KEY, MASTER_KEY, type SharedStandIns, STAND_INS_ENV } from "./stand-ins-env";

/**
 * For the tests that need the stack (every project but `unit`): builds dist/ (tests run the built
 * launcher and stand-ins as `npm start` does), then starts the stand-ins every test file shares,
 * through dev/stack.ts on free ports: the Cosmos DB server and Azurite as children, in memory,
 * stopped by global teardown. Each test file then isolates itself
 * with its own database and its own local host (test-host.ts).
 */
export default async function globalSetup(): Promise<void> {
  buildProject();
  installTypescriptToday();
  const stack = await startStack({ FUNCTION_KEY, MASTER_KEY }, { persistent: false, host: false });
  const tls = await loadOrCreateLocalTls();
  const shared: SharedStandIns = {
    cosmosEndpoint: stack.plan.settings.COSMOS_ENDPOINT as string,
    storageConnectionString: stack.plan.settings.AzureWebJobsStorage as string,
    blobTlsEndpoint: stack.plan.azurite?.blobTlsEndpoint as string,
    certFile: tls.certFile,
  };
  // The workers Jest starts next inherit this environment: hosts running in them send to the
  // AMQPS and HTTPS stand-ins as identity-based delivery does in Azure, over TLS they trust as a
  // function app trusts Azure's (Node reads NODE_EXTRA_CA_CERTS at start only). A file the
  // developer set is kept, bundled with the local certificate.
  process.env.NODE_EXTRA_CA_CERTS = extraCaCertsFile(tls, process.env.NODE_EXTRA_CA_CERTS);
  process.env[STAND_INS_ENV] = JSON.stringify(shared);
  (globalThis as Record<string, unknown>).__stack = stack;
}

/**
 * The TypeScript `npm install typescript` installs today, which test/docs/readme-examples.ts
 * compiles the README examples with beside the repository's own: an install of its own (its lock
 * in test/docs/typescript-today), not the root's, whose size it would grow by its native compiler.
 */
function installTypescriptToday(): void {
  const folder = path.join(__dirname, "..", "docs", "typescript-today");
  const wanted = (
    JSON.parse(readFileSync(path.join(folder, "package.json"), "utf8")) as {
      dependencies: { typescript: string };
    }
  ).dependencies.typescript;
  const installed = path.join(folder, "node_modules", "typescript", "package.json");
  if (
    existsSync(installed) &&
    (JSON.parse(readFileSync(installed, "utf8")) as { version: string }).version === wanted
  )
    return;
  execFileSync("npm", ["ci", "--no-audit", "--no-fund"], {
    cwd: folder,
    stdio: ["ignore", "ignore", "inherit"],
  });
}
