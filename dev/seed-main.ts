import type { SmallCommand } from "../client/cli/args";
import { assessmentId } from "../src/assessments/assessment-path";
import { ServiceUnavailable } from "../src/common/errors";
import { loadConfig } from "../src/config";
import { createServices, disposeServices } from "../src/services";
import { ensureContainers } from "../src/store/containers";
import { translateCosmosError } from "../src/store/cosmos-errors";
import { runHelper } from "./helper-command";
import { ensureLocalSecretsKey } from "./local-secrets-key";
import { loadLocalSettings, type Settings } from "./local-settings";
import { runningStack, type StackRecord } from "./running-stack";
import { SAMPLE_ASSESSMENTS, type SampleAssessment, seedAssessments } from "./seed/sample-assessments";
import { DEFAULT_PORTS, planStack } from "./stack-plan";
import { describeFailure, StartupError } from "./startup-error";
import { exampleCallerHeader, shellQuote } from "./summary";

/** `npm run seed`: into the Cosmos DB of the stack .local/local.env names (its own or COSMOS_ENDPOINT's). */
const COMMAND: SmallCommand = {
  command: "npm run seed",
  summary:
    "Loads the sample cluster assessments into the Cosmos DB of the running stack (idempotent: a second\nrun replaces them). Refuses when no stack runs.",
  examples: ["npm run seed"],
};

/**
 * The developer's settings made the running stack's: its ports (STACK_PORTS), keys, AUTH_MODE,
 * Cosmos DB database and server. What `npm start` was given counts, not what this shell holds.
 */
function withStackSettings({ values }: StackRecord, settings: Settings): Settings {
  const merged: Settings = { ...settings };
  for (const [, variable, port] of (values.STACK_PORTS ?? "").matchAll(/(\w+)=(\d+)/g)) {
    if (variable !== undefined && port !== undefined && variable in DEFAULT_PORTS) merged[variable] = port;
  }
  for (const name of ["FUNCTION_KEY", "MASTER_KEY"])
    if (values[name] !== undefined) merged[name] = values[name];
  if (values.STACK_AUTH_MODE !== undefined) merged.AUTH_MODE = values.STACK_AUTH_MODE;
  if (values.STACK_COSMOS_DATABASE !== undefined) merged.COSMOS_DATABASE = values.STACK_COSMOS_DATABASE;
  else delete merged.COSMOS_DATABASE;
  if (values.STACK_COSMOS_ENDPOINT !== undefined) {
    // The stack runs the Cosmos DB server: planStack plans it again on COSMOS_PORT.
    delete merged.COSMOS_ENDPOINT;
    delete merged.COSMOS_KEY;
  }
  return merged;
}

let target: { endpoint: string; stack: StackRecord } | undefined;

async function main(): Promise<void> {
  const stack = await runningStack();
  const { values } = loadLocalSettings(process.env);
  ensureLocalSecretsKey(values);
  const plan = planStack(withStackSettings(stack, values));
  if (stack.values.STACK_COSMOS_ENDPOINT === undefined && plan.cosmos) {
    throw new StartupError(
      `The stack at ${stack.baseUrl} uses the Cosmos DB account its settings named (COSMOS_ENDPOINT), and this shell's settings name none: run this with the COSMOS_ENDPOINT and COSMOS_KEY \`npm start\` had.`,
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
    const first = SAMPLE_ASSESSMENTS[0] as SampleAssessment;
    const url = `${stack.baseUrl}${assessmentId(first.path)}?api-version=2023-09-09-preview`;
    console.log(
      plan.settings.AUTH_MODE === "keys" ? "Look one up:" : `Look one up (with $TOKEN from ${stack.file}):`,
    );
    console.log(`  curl ${shellQuote(url)} ${exampleCallerHeader(plan)}`);
  } finally {
    await disposeServices(services);
  }
}

runHelper(COMMAND, main, (error) =>
  // ensureContainers talks to the SDK directly: its failures are translated here.
  target && translateCosmosError(error) instanceof ServiceUnavailable
    ? `Seeding failed: ${target.endpoint}, the Cosmos DB of the stack at ${target.stack.baseUrl} (${target.stack.file}), cannot be reached. Restart the stack (Ctrl+C, then npm start) and run this again.`
    : `Seeding failed: ${describeFailure(error)}`,
);
