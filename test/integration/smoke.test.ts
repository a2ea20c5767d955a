import { execFile } from "node:child_process";
import * as path from "node:path";
import { type OpenIdIssuer, principalObjectId } from "../../dev/stand-ins/openid-issuer";
import { closedPort } from "../support/closed-port";
import { ADMIN, adminEntraSettings, asPrincipal, assignRole } from "../support/entra-host";
import { startTestHost, type TestHost } from "../support/test-host";
import { startTestIssuer } from "../support/test-issuer";

// `npm run smoke` (tools/smoke.ts, built into dist/tools by the global setup) over the wire against
// an entra host of the local issuer. DefaultAzureCredential cannot get the local issuer's tokens, so
// the command gets one through SMOKE_BEARER_TOKEN, as the command documents.
const SMOKE = path.join(__dirname, "..", "..", "dist", "tools", "smoke.js");
const INSTANCE =
  "/subscriptions/5d1c7a52-0000-4000-8000-00000000a5a5/resourceGroups/smoke/providers/Microsoft.DigitalTwins/digitalTwinsInstances/plant";
const ENDPOINT = `${INSTANCE}/endpoints/smoke-test`;
const connection = (key: string) =>
  `Endpoint=sb://twins-ns.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=${key};EntityPath=twin-events`;

/** The environment of the child: this one without anything that would pick a scope or a token. */
function childEnv(token: string | undefined): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ["AUTH_APP_ID_URI", "SERVICE_API_CLIENT_ID", "AUTH_CLIENT_ID", "SMOKE_BEARER_TOKEN"]) {
    delete env[name];
  }
  if (token !== undefined) env.SMOKE_BEARER_TOKEN = token;
  return env;
}

interface SmokeRun {
  code: number;
  stdout: string;
  stderr: string;
  lines: string[];
}

function runSmoke(args: string[], token?: string): Promise<SmokeRun> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [SMOKE, ...args],
      { env: childEnv(token), timeout: 60_000, encoding: "utf8" },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") return reject(error);
        const code = error ? (error.code as number) : 0;
        resolve({ code, stdout, stderr, lines: stdout.split("\n").filter(Boolean) });
      },
    );
  });
}

let issuer: OpenIdIssuer;
let host: TestHost;
let operatorToken: string;

/** The names of the profiles the host holds, as the admin lists them. */
async function profileNames(): Promise<string[]> {
  const response = await asPrincipal(host, issuer, { name: ADMIN })("/authenticationProfiles");
  expect(response.status).toBe(200);
  const body = (await response.json()) as { value: { authenticationProfileName: string }[] };
  return body.value.map((profile) => profile.authenticationProfileName);
}

beforeAll(async () => {
  issuer = await startTestIssuer();
  host = await startTestHost(adminEntraSettings(issuer));
  // The operator is no bootstrap admin: it works through a role assignment, as a deployment's would.
  await assignRole(host, issuer, "/", "operator", "Contributor");
  const created = await asPrincipal(host, issuer, { name: ADMIN })(ENDPOINT, {
    method: "PUT",
    body: JSON.stringify({
      queuePrimaryConnectionString: connection("cHJpbWFyeQ=="),
      queueSecondaryConnectionString: connection("c2Vjb25kYXJ5"),
    }),
  });
  expect(created.status).toBe(201);
  operatorToken = await issuer.mint({ name: "operator" });
});
afterAll(async () => {
  await host.stop();
  await issuer.close();
});

it("passes every step against a working host, prints no token, and leaves no profile behind", async () => {
  const before = await profileNames();
  const run = await runSmoke(["--base-url", host.baseUrl, "--endpoint", ENDPOINT], operatorToken);
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
  const steps = run.lines.filter((line) => /^[✓✗-] /.test(line));
  expect(steps.map((line) => line.replace(/:.*$/, "").replace(/smoke-\d{14}-[a-z0-9]{7}/, "<name>"))).toEqual(
    [
      "✓ GET /health",
      "✓ token for api",
      "✓ token accepted (GET /authenticationProfiles)",
      "✓ PUT /authenticationProfiles/<name>",
      "✓ GET /authenticationProfiles/<name>",
      "✓ DELETE /authenticationProfiles/<name>",
      "✓ GET /authenticationProfiles/<name> after the delete",
      `✓ GET ${INSTANCE}/endpoints/smoke-test`,
      `✓ POST ${INSTANCE}/events`,
    ],
  );
  expect(run.stdout).toContain(
    "token for api://00000000-0000-4000-8000-0000000a0d1e/.default: from SMOKE_BEARER_TOKEN",
  );
  expect(run.stdout).toMatch(/after the delete: 404, gone/);
  expect(run.stdout).toMatch(/events: accepted \(202, event id [0-9a-f-]{36}\)/);
  expect(run.lines.at(-1)).toBe("Smoke check passed: 9 steps.");
  expect(run.stdout).not.toContain(operatorToken);
  expect(run.stdout).not.toContain(operatorToken.split(".")[2]);
  expect(await profileNames()).toEqual(before);
});

it("runs without --endpoint, and --help prints the usage with exit code 0", async () => {
  const run = await runSmoke(["--base-url", host.baseUrl], operatorToken);
  expect(run.code).toBe(0);
  expect(run.stdout).not.toContain("/events");
  expect(run.lines.at(-1)).toBe("Smoke check passed: 7 steps.");

  const help = await runSmoke(["--help"]);
  expect(help.code).toBe(0);
  expect(help.stdout).toMatch(/^Usage: npm run smoke -- --base-url <url>/);
});

it("exits 1 naming the step when the base URL answers nothing", async () => {
  const run = await runSmoke(
    ["--base-url", `http://127.0.0.1:${await closedPort()}`, "--timeout", "5"],
    operatorToken,
  );
  expect(run.code).toBe(1);
  expect(run.lines[1]).toMatch(/^✗ GET \/health: .*ECONNREFUSED/);
  expect(run.stdout).toContain("- token: skipped (the service did not answer)");
  expect(run.lines.at(-1)).toBe("Smoke check FAILED: 1 of 1 steps failed.");
  expect(run.stdout).not.toContain(operatorToken);
});

it("exits 1 with the service's 401 when the token is refused, and creates nothing", async () => {
  const before = await profileNames();
  const refused = await issuer.mint({ name: "operator", audience: "api://someone-else" });
  const run = await runSmoke(["--base-url", host.baseUrl], refused);
  expect(run.code).toBe(1);
  expect(run.stdout).toContain("✓ GET /health");
  expect(run.stdout).toMatch(
    /^✗ token accepted \(GET \/authenticationProfiles\): 401 InvalidAuthenticationToken: /m,
  );
  expect(run.stdout).toContain("- profile: skipped (the authenticated read failed)");
  expect(run.stdout).not.toMatch(/^. PUT /m);
  expect(run.stdout).not.toContain(refused);
  expect(await profileNames()).toEqual(before);
});

it("exits 1 with the 403 when the principal has no role", async () => {
  const stranger = await issuer.mint({ name: "stranger" });
  const run = await runSmoke(["--base-url", host.baseUrl], stranger);
  expect(run.code).toBe(1);
  expect(run.stdout).toMatch(
    new RegExp(
      `^✗ token accepted \\(GET /authenticationProfiles\\): 403 AuthorizationFailed: .*${principalObjectId("stranger")}`,
      "m",
    ),
  );
});

it("refuses usage errors with exit code 1 before calling anything", async () => {
  const missing = await runSmoke([]);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toMatch(/^✗ --base-url is required\./);
  const badEndpoint = await runSmoke(["--base-url", host.baseUrl, "--endpoint", "/not/an/endpoint"]);
  expect(badEndpoint.code).toBe(1);
  expect(badEndpoint.stderr).toMatch(/^✗ --endpoint must be an endpoint's id/);
});
