import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildOpenApiDocument } from "../../src/http/openapi";
import { routeDefinitions } from "../../src/triggers/routes";

// npm run lint:api lints the document an AUTH_MODE=entra instance serves (the default); an
// AUTH_MODE=keys instance serves another (its security schemes, its 401s, no 403): lint-clean too,
// under the same Redocly ruleset, not one error, warning or hint.
it("has no Redocly problem in the document an AUTH_MODE=keys instance serves", () => {
  const root = join(__dirname, "..", "..");
  const directory = mkdtempSync(join(tmpdir(), "openapi-keys-"));
  try {
    const file = join(directory, "openapi.json");
    writeFileSync(
      file,
      JSON.stringify(buildOpenApiDocument(routeDefinitions(), undefined, { mode: "keys" })),
    );
    const result = spawnSync(
      join(root, "node_modules", ".bin", "redocly"),
      ["lint", file, "--config", join(root, "redocly.yaml"), "--format=json"],
      {
        cwd: root,
        encoding: "utf8",
        env: {
          ...process.env,
          REDOCLY_TELEMETRY: "off",
          REDOCLY_SUPPRESS_UPDATE_NOTICE: "true",
          NO_COLOR: "1",
        },
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    const output = JSON.parse(result.stdout.slice(result.stdout.search(/[[{]/))) as {
      problems: { ruleId: string; message: string }[];
    };
    expect(output.problems.map((problem) => `${problem.ruleId}: ${problem.message}`)).toEqual([]);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}, 60_000);
