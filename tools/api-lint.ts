import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { buildOpenApiDocument } from "../src/http/openapi";
import { routeDefinitions } from "../src/triggers/routes";

const routes = routeDefinitions();

/** One finding of a linter, in a line a person reads. */
export interface ApiLintResult {
  file: string;
  redocly: string[];
}

/** The package root: the nearest folder above this file (compiled or not) holding redocly.yaml. */
function packageRoot(): string {
  let directory = __dirname;
  while (!existsSync(join(directory, "redocly.yaml"))) {
    const parent = dirname(directory);
    if (parent === directory) throw new Error(`redocly.yaml not found above ${__dirname}`);
    directory = parent;
  }
  return directory;
}

const ROOT = packageRoot();

function bin(name: string): string {
  return join(ROOT, "node_modules", ".bin", name);
}

function run(command: string, args: string[]): string {
  const result = spawnSync(command, args, {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  return result.stdout;
}

function parseJson<T>(text: string, tool: string): T {
  const start = text.search(/[[{]/);
  try {
    return JSON.parse(text.slice(start)) as T;
  } catch {
    throw new Error(`${tool} did not answer JSON: ${text.slice(0, 500)}`);
  }
}

interface RedoclyProblem {
  ruleId: string;
  severity: string;
  message: string;
  location?: { pointer?: string }[];
}

/**
 * Writes the route table's API description (as GET /openapi.json serves it) and lints it with
 * Redocly's recommended ruleset (redocly.yaml): every problem, warnings and hints too. One linter:
 * Spectral's oas ruleset, run beside it until both passed the document clean, added 124 packages
 * (42 MB) to every install.
 */
export function lintApiDescription(directory = join(ROOT, ".local")): ApiLintResult {
  mkdirSync(directory, { recursive: true });
  const file = join(directory, "openapi.json");
  const document = buildOpenApiDocument(routes);
  writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
  const redocly = parseJson<{ problems: RedoclyProblem[] }>(
    run(bin("redocly"), ["lint", file, "--config", join(ROOT, "redocly.yaml"), "--format=json"]),
    "redocly",
  ).problems.map(
    (problem) =>
      `${problem.severity} ${problem.ruleId}: ${problem.message} (${problem.location?.[0]?.pointer ?? ""})`,
  );
  return { file, redocly };
}
