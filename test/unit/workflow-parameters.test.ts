import { readFileSync } from "node:fs";
import * as path from "node:path";
import { parse as parseYaml } from "yaml";

/**
 * Issue 42: the pipeline must pass every variable `azd up` reads. azd fills infra/main.parameters.json
 * from the environment (`${NAME}` and `${NAME=default}`), so a variable the workflow does not pass is
 * empty in CI, and each pipeline provision would undo what a person's `azd up` set (endpoint
 * identities detached, Easy Auth off, a custom audience dropped, the pipeline's principal the only
 * bootstrap Owner). The lists are read from the files on every run: a parameter added to
 * main.parameters.json fails here until the workflow passes its variable.
 */
// INFRA_TEST_ROOT: check another copy of the repository (e.g. an older one) instead.
const ROOT = process.env.INFRA_TEST_ROOT ?? path.join(__dirname, "..", "..");
const parametersText = readFileSync(path.join(ROOT, "infra", "main.parameters.json"), "utf8");
const mainBicep = readFileSync(path.join(ROOT, "infra", "main.bicep"), "utf8");
const workflowText = readFileSync(path.join(ROOT, ".github", "workflows", "azure-dev.yml"), "utf8");
const azureYaml = readFileSync(path.join(ROOT, "azure.yaml"), "utf8");

/**
 * Variables azd fills itself whatever the environment says: AZURE_PRINCIPAL_ID is always the
 * signed-in principal's object id (azd's Bicep provider substitutes it before consulting the
 * environment), so a repository variable for it would be ignored.
 */
const AZD_FILLS = new Set(["AZURE_PRINCIPAL_ID"]);

/** Variables `azd pipeline config` sets itself, as repository variables or (the last) a secret. */
const PIPELINE_CONFIG_VARIABLES = [
  "AZURE_CLIENT_ID",
  "AZURE_TENANT_ID",
  "AZURE_SUBSCRIPTION_ID",
  "AZURE_ENV_NAME",
  "AZURE_LOCATION",
];
const PIPELINE_CONFIG_SECRET = "AZD_INITIAL_ENVIRONMENT_CONFIG";

type Yaml = unknown;

function asMap(value: Yaml): { [key: string]: Yaml } {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as { [key: string]: Yaml })
    : {};
}

function asString(value: Yaml): string {
  return typeof value === "string" ? value : "";
}

/** Every variable main.parameters.json reads, `${NAME}` or `${NAME=default}` (any envsubst form). */
function referencedVariables(parameters: string): string[] {
  const names = new Set<string>();
  for (const match of parameters.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)[^}]*\}/g)) names.add(match[1] ?? "");
  return [...names].sort();
}

interface ProvisionStep {
  job: string;
  step: string;
  env: Record<string, string>;
}

/** Each step that runs `azd provision` or `azd up`, with the env it gets (workflow, job, step). */
function provisionSteps(workflow: string): ProvisionStep[] {
  const root = asMap(parseYaml(workflow));
  const found: ProvisionStep[] = [];
  for (const [job, definition] of Object.entries(asMap(root.jobs))) {
    const steps = asMap(definition).steps;
    for (const step of Array.isArray(steps) ? steps : []) {
      const run = asString(asMap(step).run);
      if (!/\bazd\s+(provision|up)\b/.test(run)) continue;
      const env: Record<string, string> = {};
      for (const scope of [root.env, asMap(definition).env, asMap(step).env]) {
        for (const [name, value] of Object.entries(asMap(scope))) env[name] = asString(value);
      }
      found.push({ job, step: asString(asMap(step).name) || run, env });
    }
  }
  return found;
}

/** The variables azd reads that a provision step is not given. */
function notPassed(parameters: string, step: ProvisionStep): string[] {
  return referencedVariables(parameters).filter((name) => !AZD_FILLS.has(name) && !(name in step.env));
}

/** The variables that fill a @secure() parameter of main.bicep: they belong in secrets, not vars. */
function secretVariables(): Set<string> {
  const secure = new Set(
    [...mainBicep.matchAll(/^@secure\(\)\n(?:@.*\n)*param (\w+) /gm)].map((match) => match[1] ?? ""),
  );
  const mapped = JSON.parse(parametersText).parameters as Record<string, { value?: unknown }>;
  const names = new Set<string>();
  for (const [parameter, entry] of Object.entries(mapped)) {
    if (!secure.has(parameter) || typeof entry.value !== "string") continue;
    for (const name of referencedVariables(entry.value)) names.add(name);
  }
  return names;
}

describe("finding the provision steps", () => {
  it("reads mappings, sequences of mappings, block scalars and env at every level", () => {
    const yaml = [
      "env:",
      `  TOP: \${{ vars.TOP }}`,
      "jobs:",
      "  deploy:",
      "    env:",
      "      # a comment",
      `      JOB: "\${{ secrets.JOB }}"`,
      "    steps:",
      "      - uses: actions/checkout@v4",
      "      - name: Provision",
      "        run: |",
      "          echo first",
      "          azd provision --no-prompt",
      "        env:",
      `          STEP: \${{ vars.STEP }}`,
      "      - name: Deploy",
      "        run: azd deploy --no-prompt",
    ].join("\n");
    expect(provisionSteps(yaml)).toEqual([
      {
        job: "deploy",
        step: "Provision",
        env: { TOP: `\${{ vars.TOP }}`, JOB: `\${{ secrets.JOB }}`, STEP: `\${{ vars.STEP }}` },
      },
    ]);
  });

  it("names a variable the provision step is not given", () => {
    const doctored = workflowText.replace(/^ *ENDPOINT_IDENTITY_IDS:.*\n/m, "");
    expect(doctored).not.toBe(workflowText);
    const [step] = provisionSteps(doctored);
    expect(step && notPassed(parametersText, step)).toEqual(["ENDPOINT_IDENTITY_IDS"]);
  });
});

describe("infra/main.parameters.json", () => {
  const referenced = referencedVariables(parametersText);

  it("reads variables, plain and with a default", () => {
    expect(referenced).toEqual(expect.arrayContaining(["SECRETS_ENCRYPTION_KEY", "ENABLE_EASY_AUTH"]));
    // biome-ignore lint/suspicious/noTemplateCurlyInString: azd's substitution, matched as text
    expect(parametersText).toContain("${ENABLE_EASY_AUTH=false}");
  });
});

describe(".github/workflows/azure-dev.yml passes every variable azd up takes (issue 42)", () => {
  const steps = provisionSteps(workflowText);
  const secrets = secretVariables();

  it("has one step that provisions", () => {
    expect(steps.map((s) => `${s.job}/${s.step}`)).toEqual(["deploy/Provision"]);
  });

  it.each(steps.map((s) => [`${s.job}/${s.step}`, s] as const))(
    "gives %s each variable of main.parameters.json",
    (_, step) => {
      expect({ notPassed: notPassed(parametersText, step) }).toEqual({ notPassed: [] });
    },
  );

  it.each(steps.map((s) => [`${s.job}/${s.step}`, s] as const))(
    "takes each from the repository variable or secret of the same name in %s (secrets for @secure() parameters)",
    (_, step) => {
      expect(secrets).toContain("SECRETS_ENCRYPTION_KEY");
      const wrong: Record<string, string> = {};
      for (const name of referencedVariables(parametersText).filter((n) => !AZD_FILLS.has(n))) {
        const store = secrets.has(name) ? "secrets" : "vars";
        const wanted = `\${{ ${store}.${name} }}`;
        if (step.env[name] !== wanted) wrong[name] = `${step.env[name]} (want ${wanted})`;
      }
      expect(wrong).toEqual({});
    },
  );

  it.each(steps.map((s) => [`${s.job}/${s.step}`, s] as const))(
    "passes azd pipeline config's variables and secret, and not what azd fills itself, in %s",
    (_, step) => {
      for (const name of PIPELINE_CONFIG_VARIABLES) expect(step.env[name]).toBe(`\${{ vars.${name} }}`);
      expect(step.env[PIPELINE_CONFIG_SECRET]).toBe(`\${{ secrets.${PIPELINE_CONFIG_SECRET} }}`);
      for (const name of AZD_FILLS) expect(step.env).not.toHaveProperty(name);
    },
  );

  it("has azure.yaml name each for azd pipeline config to copy, secrets as secrets", () => {
    const pipeline = asMap(asMap(parseYaml(azureYaml)).pipeline);
    const listed = (key: string) => (Array.isArray(pipeline[key]) ? (pipeline[key] as string[]) : []);
    const own = new Set([...PIPELINE_CONFIG_VARIABLES, ...AZD_FILLS]);
    const wanted = referencedVariables(parametersText).filter((name) => !own.has(name));
    expect({ variables: [...listed("variables")].sort(), secrets: [...listed("secrets")].sort() }).toEqual({
      variables: wanted.filter((name) => !secrets.has(name)),
      secrets: wanted.filter((name) => secrets.has(name)),
    });
  });

  it("says in its header how azd pipeline config sets variables, and names each secret", () => {
    const header = workflowText.slice(0, workflowText.search(/^name:/m));
    expect(header).toContain("`azd pipeline config`");
    for (const name of [...secrets, PIPELINE_CONFIG_SECRET]) expect(header).toContain(name);
  });
});
