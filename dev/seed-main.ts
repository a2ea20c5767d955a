import { ServiceUnavailable } from "../src/common/errors";
import { loadConfig } from "../src/config";
import { createServices, disposeServices } from "../src/services";
import { ensureContainers } from "../src/store/containers";
import { translateCosmosError } from "../src/store/cosmos-errors";
import { ensureLocalSecretsKey } from "./local-secrets-key";
import { loadLocalSettings } from "./local-settings";
import { SAMPLE_ASSESSMENTS } from "./seed/sample-assessments";
import { seedAssessments } from "./seed/seed-assessments";
import { planStack } from "./stack-plan";
import { describeFailure } from "./startup-error";
import { assessmentLookupExample, exampleCaller } from "./summary";

/**
 * `npm run seed`: loads the sample cluster assessments into the configured Cosmos DB (the local
 * server of `npm start` unless COSMOS_ENDPOINT is set). Idempotent: a second run replaces them.
 */
let cosmosEndpoint = "Cosmos DB";

async function main(): Promise<void> {
  const { values } = loadLocalSettings(process.env);
  ensureLocalSecretsKey(values);
  const plan = planStack(values);
  const config = loadConfig(plan.settings);
  cosmosEndpoint = config.COSMOS_ENDPOINT;
  const services = createServices(config);
  try {
    console.log(
      `Seeding ${SAMPLE_ASSESSMENTS.length} cluster assessments into ${config.COSMOS_ENDPOINT} (${config.COSMOS_DATABASE})...`,
    );
    // The local server may have just started empty; a real account has its containers from infra/.
    if (plan.cosmos) await ensureContainers(services.cosmos, config.COSMOS_DATABASE);
    const summary = await seedAssessments(services.assessments, (line) => console.log(`  ${line}`));
    console.log(`Done: ${summary.created} created, ${summary.replaced} replaced.`);
    const first = SAMPLE_ASSESSMENTS[0];
    if (first) {
      const caller = exampleCaller(plan);
      console.log(
        "functionKey" in caller ? "Look one up:" : "Look one up (with $TOKEN from .local/local.env):",
      );
      console.log(`  ${assessmentLookupExample(plan.host.url, caller)}`);
    }
  } finally {
    await disposeServices(services);
  }
}

main().catch((error: unknown) => {
  // ensureContainers talks to the SDK directly: its failures are translated here.
  if (translateCosmosError(error) instanceof ServiceUnavailable) {
    console.error(`Seeding failed: ${cosmosEndpoint} cannot be reached. Is \`npm start\` running?`);
    process.exit(1);
  }
  console.error(`Seeding failed: ${describeFailure(error)}`);
  process.exit(1);
});
