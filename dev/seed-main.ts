import { ServiceUnavailable } from "../src/common/errors";
import { loadConfig } from "../src/config";
import { createServices, disposeServices } from "../src/services";
import { ensureContainers } from "../src/store/containers";
import { translateCosmosError } from "../src/store/cosmos-errors";
import { type CommandSpec, commandLine } from "./cli-options";
import { ensureLocalSecretsKey } from "./local-secrets-key";
import { loadLocalSettings } from "./local-settings";
import { runningStack, type StackRecord, withStackSettings } from "./running-stack";
import { SAMPLE_ASSESSMENTS } from "./seed/sample-assessments";
import { seedAssessments } from "./seed/seed-assessments";
import { planStack } from "./stack-plan";
import { describeFailure, StartupError } from "./startup-error";
import { assessmentLookupExample, exampleCaller } from "./summary";

/**
 * `npm run seed`: loads the sample cluster assessments into the Cosmos DB of the stack `npm start`
 * runs, as `.local/local.env` describes it (its Cosmos DB server on whatever port it took, or the
 * account COSMOS_ENDPOINT names), and refuses when no stack runs. Idempotent: a second run
 * replaces them.
 */
const COMMAND = {
  command: "npm run seed",
  summary:
    "Loads the sample cluster assessments into the Cosmos DB of the running stack (idempotent: a second\nrun replaces them). Refuses when no stack runs.",
  examples: ["npm run seed"],
} satisfies CommandSpec<never, never>;

let target: { endpoint: string; stack: StackRecord } | undefined;

async function main(): Promise<void> {
  commandLine(COMMAND);
  const stack = await runningStack();
  const { values } = loadLocalSettings(process.env);
  ensureLocalSecretsKey(values);
  const plan = planStack(withStackSettings(stack, values));
  if (plan.host.url !== stack.baseUrl) {
    throw new StartupError(
      `${stack.file} names ${stack.baseUrl} but its ports plan ${plan.host.url}: restart the stack (Ctrl+C, then npm start).`,
    );
  }
  const standIn = stack.values.STACK_COSMOS_ENDPOINT;
  if (standIn === undefined && plan.cosmos) {
    throw new StartupError(
      `The stack at ${stack.baseUrl} uses the Cosmos DB account its settings named (COSMOS_ENDPOINT), and this shell's settings name none: run this with the COSMOS_ENDPOINT and COSMOS_KEY \`npm start\` had.`,
    );
  }
  if (standIn !== undefined && plan.cosmos?.endpoint !== standIn) {
    throw new StartupError(
      `${stack.file} names the Cosmos DB server ${standIn} but its ports plan ${plan.cosmos?.endpoint}: restart the stack (Ctrl+C, then npm start).`,
    );
  }
  const config = loadConfig(plan.settings);
  target = { endpoint: config.COSMOS_ENDPOINT, stack };
  const services = createServices(config);
  try {
    console.log(
      `Seeding ${SAMPLE_ASSESSMENTS.length} cluster assessments into ${config.COSMOS_ENDPOINT} (${config.COSMOS_DATABASE}), the Cosmos DB of the stack at ${stack.baseUrl}...`,
    );
    // The local server may have just started empty; a real account has its containers from infra/.
    if (plan.cosmos) await ensureContainers(services.cosmos, config.COSMOS_DATABASE);
    const summary = await seedAssessments(services.assessments, (line) => console.log(`  ${line}`));
    console.log(`Done: ${summary.created} created, ${summary.replaced} replaced.`);
    const first = SAMPLE_ASSESSMENTS[0];
    if (first) {
      const caller = exampleCaller(plan);
      console.log("functionKey" in caller ? "Look one up:" : `Look one up (with $TOKEN from ${stack.file}):`);
      console.log(`  ${assessmentLookupExample(stack.baseUrl, caller)}`);
    }
  } finally {
    await disposeServices(services);
  }
}

main().catch((error: unknown) => {
  // ensureContainers talks to the SDK directly: its failures are translated here.
  if (target && translateCosmosError(error) instanceof ServiceUnavailable) {
    console.error(
      `Seeding failed: ${target.endpoint}, the Cosmos DB of the stack at ${target.stack.baseUrl} (${target.stack.file}), cannot be reached. Restart the stack (Ctrl+C, then npm start) and run this again.`,
    );
    process.exit(1);
  }
  console.error(`Seeding failed: ${describeFailure(error)}`);
  process.exit(1);
});
