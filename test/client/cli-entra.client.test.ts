import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { LOCAL_APP_ID_URI } from "../../dev/stand-ins/openid/principals";
import { type OpenIdIssuer, principalObjectId } from "../../dev/stand-ins/openid-issuer";
import { adminEntraSettings, assignRole } from "../support/entra-host";
import { removeTempDirs, tempDir } from "../support/temp-dirs";
import { startTestHost, type TestHost } from "../support/test-host";
import { startTestIssuer } from "../support/test-issuer";
import { runTwin } from "./cli-runner";

// `twin` against a host under AUTH_MODE=entra, the mode `npm start` and infra/ run, with the two
// credentials a person uses there: DefaultAzureCredential, unmodified, getting its token from the
// Azure CLI (here a stand-in `az` on PATH that answers `az account get-access-token` as the real
// one does, with a token of the local issuer), and `--local`, the stack's TOKEN from an env file.

const PROFILE = "cli-entra-profile";

let issuer: OpenIdIssuer;
let host: TestHost;
let folder: string;
/** Every token handed to the CLI: none may appear in what it prints. */
const tokens: string[] = [];
const outputs: string[] = [];

/** The environment with nothing that would pick a base URL, key, scope or credential. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(TWIN_|AZURE_|AUTH_|SERVICE_API_|IDENTITY_|MSI_|LOCAL_DATA_DIR$)/.test(name)) delete env[name];
  }
  return env;
}

const twin = (args: string[], env: NodeJS.ProcessEnv) => runTwin(args, folder, outputs, "", env);

/**
 * A folder holding an `az` that records its arguments and answers as Azure CLI 2.54+ does: the
 * token as JSON with `expiresOn` and `expires_on`, or, logged out, "Please run 'az login'" on
 * stderr with exit code 1.
 */
function azureCli(name: string, token: string | undefined): { bin: string; calls: () => string[] } {
  const bin = path.join(folder, name);
  const log = path.join(bin, "calls.log");
  const answer = path.join(bin, "answer.json");
  mkdirSync(bin);
  writeFileSync(log, "");
  const expires = Math.floor(Date.now() / 1000) + 3600;
  const body = {
    accessToken: token,
    expiresOn: new Date(expires * 1000).toISOString().replace("T", " ").slice(0, 19),
    expires_on: expires,
    subscription: "00000000-0000-0000-0000-000000000000",
    tenant: "00000000-0000-0000-0000-00000000717e",
    tokenType: "Bearer",
  };
  writeFileSync(answer, JSON.stringify(body));
  const respond =
    token === undefined
      ? `echo "ERROR: Please run 'az login' to setup account." >&2; exit 1`
      : `cat '${answer}'`;
  writeFileSync(path.join(bin, "az"), `#!/bin/sh\necho "$@" >> '${log}'\n${respond}\n`);
  chmodSync(path.join(bin, "az"), 0o755);
  return { bin, calls: () => readFileSync(log, "utf8").split("\n").filter(Boolean) };
}

/** DefaultAzureCredential as a person's terminal has it: the Azure CLI signed in. */
function withAzureCli(bin: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...cleanEnv(),
    // Only the developer credentials: no managed identity probe of 169.254.169.254 from a laptop.
    AZURE_TOKEN_CREDENTIALS: "dev",
    PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}`,
    ...extra,
  };
}

/** The env file `npm start` writes, with this host's address and `token` as the developer's. */
function localEnv(name: string, token: string): string {
  tokens.push(token);
  const file = path.join(folder, name);
  writeFileSync(
    file,
    `export BASE_URL='${host.baseUrl}'\nexport TOKEN='${token}'\nexport STACK_AUTH_MODE='entra'\n`,
  );
  return file;
}

beforeAll(async () => {
  folder = tempDir("twin-cli-entra-");
  issuer = await startTestIssuer();
  host = await startTestHost(adminEntraSettings(issuer));
  await assignRole(host, issuer, "/", "operator", "Contributor");
  await assignRole(host, issuer, "/", "auditor", "Reader");
});
afterAll(async () => {
  await host.stop();
  await issuer.close();
  removeTempDirs();
});

describe("DefaultAzureCredential, through the Azure CLI", () => {
  it("asks az for a token of the service's application on loopback and works with it", async () => {
    // What az gets for a resource: a v1 token, its audience the App ID URI.
    const token = await issuer.mint({ name: "operator", version: "1.0" });
    tokens.push(token);
    const az = azureCli("az-operator", token);
    const env = withAzureCli(az.bin);
    const content = JSON.stringify({ Client_ID: "ExampleClientID" });
    const profile = path.join(folder, "profile.json");
    writeFileSync(profile, JSON.stringify({ name: PROFILE, authenticationProfileContent: content }));

    const applied = await twin(["profiles", "apply", "--file", profile, "--base-url", host.baseUrl], env);
    expect(applied).toMatchObject({ code: 0 });
    const listed = await twin(["profiles", "list", "--base-url", host.baseUrl, "--output", "json"], env);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual(
      expect.arrayContaining([expect.objectContaining({ authenticationProfileName: PROFILE })]),
    );
    // v1 tokens name a resource: the scope without /.default.
    expect(az.calls()[0]).toMatch(
      new RegExp(`^account get-access-token --output json --resource ${LOCAL_APP_ID_URI}(\\s|$)`),
    );
  });

  it("takes the application from AUTH_APP_ID_URI, and a 401 for another audience is exit code 3", async () => {
    const token = await issuer.mint({ name: "operator", version: "1.0", audience: "api://some-other-app" });
    tokens.push(token);
    const az = azureCli("az-other-app", token);
    const run = await twin(
      ["profiles", "list", "--base-url", host.baseUrl],
      withAzureCli(az.bin, { AUTH_APP_ID_URI: "api://some-other-app" }),
    );
    expect(az.calls()[0]).toContain("--resource api://some-other-app");
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/401|not accepted|token/i);
  });

  it("signed out of az: exit code 3, saying how to sign in", async () => {
    const az = azureCli("az-signed-out", undefined);
    const run = await twin(["profiles", "list", "--base-url", host.baseUrl], withAzureCli(az.bin));
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/az login/);
    expect(run.stdout).toBe("");
  });
});

describe("--local against a stack under entra", () => {
  it("uses the env file's TOKEN", async () => {
    const file = localEnv("operator.env", await issuer.mint({ name: "operator" }));
    const run = await twin(["profiles", "show", PROFILE, "--local", "--local-env", file], cleanEnv());
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(PROFILE);
  });

  it("finds the env file in LOCAL_DATA_DIR, where `npm start` then writes it", async () => {
    mkdirSync(path.join(folder, "data"));
    localEnv(path.join("data", "local.env"), await issuer.mint({ name: "operator" }));
    const run = await twin(["profiles", "show", PROFILE, "--local"], {
      ...cleanEnv(),
      LOCAL_DATA_DIR: "data",
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(PROFILE);
    // Without it, .local/local.env of the current folder, which does not exist here.
    const without = await twin(["profiles", "show", PROFILE, "--local"], cleanEnv());
    expect(without.code).toBe(1);
    expect(without.stderr).toContain(path.join(".local", "local.env"));
  });

  it("a Reader's token reads, and a write it may not make is refused with exit code 1 (403)", async () => {
    const file = localEnv("auditor.env", await issuer.mint({ name: "auditor" }));
    const read = await twin(["profiles", "list", "--local", "--local-env", file], cleanEnv());
    expect(read.code).toBe(0);
    const refused = await twin(["profiles", "delete", PROFILE, "--local", "--local-env", file], cleanEnv());
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/403|AuthorizationFailed|not authorized/i);
    expect(refused.stderr).toContain(principalObjectId("auditor"));
  });

  it("an expired token is exit code 3, and says how to get a new one", async () => {
    const twoHoursAgo = Math.floor(Date.now() / 1000) - 7200;
    const expired = await issuer.mint({ name: "operator", now: twoHoursAgo, lifetimeSeconds: 3600 });
    const file = localEnv("expired.env", expired);
    const run = await twin(["profiles", "list", "--local", "--local-env", file], cleanEnv());
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/expired/i);
  });

  it("never prints a token it was given", () => {
    expect(tokens.length).toBeGreaterThan(4);
    for (const token of tokens) {
      for (const output of outputs) expect(output).not.toContain(token);
      // Nor the part after the header: a token cut in two is still the token's signature.
      const signature = token.split(".")[2] as string;
      for (const output of outputs) expect(output).not.toContain(signature);
    }
  });
});
