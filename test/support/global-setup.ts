import { startStack } from "../../dev/stack";
import { buildProject } from "./build-once";
import { FUNCTION_KEY, MASTER_KEY, type SharedStandIns, STAND_INS_ENV } from "./stand-ins-env";

/**
 * For the tests that need the stack (every project but `unit`): builds dist/ (tests run the built
 * launcher and stand-ins as `npm start` does), then starts the stand-ins every test file shares,
 * through dev/stack.ts on free ports: the Cosmos DB server in this process and Azurite as a child,
 * its data in a temporary folder that global teardown removes. Each test file then isolates itself
 * with its own database and its own local host (test-host.ts).
 */
export default async function globalSetup(): Promise<void> {
  buildProject();
  const stack = await startStack(
    { FUNCTION_KEY, MASTER_KEY },
    {
      ports: "free",
      persistent: false,
      cosmos: "in-process",
      serviceBus: "none",
      host: "none",
      childOutput: "errors",
    },
  );
  const shared: SharedStandIns = {
    cosmosEndpoint: stack.cosmosEndpoint,
    storageConnectionString: stack.storageConnectionString,
  };
  process.env[STAND_INS_ENV] = JSON.stringify(shared);
  (globalThis as Record<string, unknown>).__stack = stack;
}
