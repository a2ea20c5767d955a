import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { readLocalEnvFile, writeLocalEnvFile } from "../../dev/local-env-file";
import { freePort } from "../../dev/ports";
import { planStack } from "../../dev/stack-plan";
import {
  LOCAL_APP_ID_URI,
  LOCAL_CLIENT_ID,
  loadOrCreateSigningKeyFile,
  type OpenIdIssuer,
  principalObjectId,
  startOpenIdIssuer,
} from "../../dev/stand-ins/openid-issuer";
import { removeTempDirs, tempDir } from "../support/temp-dirs";

// `npm run token` as a developer runs it: the built command, a data folder with the key and the
// env file `npm start` leaves, and an issuer serving that key; its tokens must verify there.

const ROOT = path.join(__dirname, "..", "..");
const settingsFile = path.join(tempDir("token-settings-"), "local.settings.json");
writeFileSync(
  settingsFile,
  JSON.stringify({ IsEncrypted: false, Values: { FUNCTION_KEY: "f", MASTER_KEY: "m" } }),
);

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The test's environment minus anything that would point the command elsewhere. */
function cleanEnvironment(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith("AUTH_") && !["LOCAL_DATA_DIR", "ISSUER_PORT", "TOKEN"].includes(name),
    ),
  );
}

function token(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(ROOT, "dist", "dev", "token-main.js"), ...args],
      { cwd: ROOT, env: { ...cleanEnvironment(), LOCAL_SETTINGS_FILE: settingsFile, ...env } },
      (error, stdout, stderr) => resolve({ code: error ? (error.code as number) : 0, stdout, stderr }),
    );
  });
}

let dataDir: string;
let issuer: OpenIdIssuer;

beforeAll(async () => {
  // What `npm start` leaves: the key, and the env file naming the issuer it ran.
  dataDir = tempDir("token-data-");
  const port = await freePort();
  const keyFile = path.join(dataDir, "issuer-key.json");
  await loadOrCreateSigningKeyFile(keyFile);
  issuer = await startOpenIdIssuer({ port, keyFile });
  const plan = planStack({
    FUNCTION_KEY: "f",
    MASTER_KEY: "m",
    LOCAL_DATA_DIR: dataDir,
    ISSUER_PORT: String(port),
  });
  writeLocalEnvFile(plan, undefined, "old.developer.token");
});

afterAll(async () => {
  await issuer?.close();
  removeTempDirs();
});

async function verify(jwt: string) {
  const { payload } = await jwtVerify(jwt, createRemoteJWKSet(new URL(issuer.jwksUri())), {
    issuer: issuer.authority,
    audience: [LOCAL_CLIENT_ID, LOCAL_APP_ID_URI],
    algorithms: ["RS256"],
  });
  return payload;
}

describe("npm run token", () => {
  it("prints only a user token for the name, signed by the issuer npm start ran", async () => {
    const run = await token(["alice"], { LOCAL_DATA_DIR: dataDir });
    expect(run).toMatchObject({ code: 0 });
    expect(run.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    const payload = await verify(run.stdout.trim());
    expect(payload).toMatchObject({
      oid: principalObjectId("alice"),
      name: "alice",
      scp: "user_impersonation",
    });
    expect((payload.exp as number) - (payload.iat as number)).toBe(8 * 3600);
    expect(run.stderr).toContain(`user alice (object id ${principalObjectId("alice")}), valid 8 h`);
    // Naming a principal, even the developer, leaves the file's token alone.
    expect(readLocalEnvFile({ LOCAL_DATA_DIR: dataDir }).TOKEN).toBe("old.developer.token");
  });

  it("prints an application token with --app, for --hours", async () => {
    const run = await token(["ingest-app", "--app", "--hours", "2"], { LOCAL_DATA_DIR: dataDir });
    expect(run.code).toBe(0);
    const payload = await verify(run.stdout.trim());
    expect(payload).toMatchObject({ oid: principalObjectId("ingest-app"), idtyp: "app" });
    expect(payload).not.toHaveProperty("scp");
    expect((payload.exp as number) - (payload.iat as number)).toBe(2 * 3600);
  });

  it("without a name renews the developer's TOKEN in .local/local.env and prints it", async () => {
    const before = readLocalEnvFile({ LOCAL_DATA_DIR: dataDir });
    const run = await token([], { LOCAL_DATA_DIR: dataDir });
    expect(run.code).toBe(0);
    const after = readLocalEnvFile({ LOCAL_DATA_DIR: dataDir });
    expect(after.TOKEN).toBe(run.stdout.trim());
    expect(after).toEqual({ ...before, TOKEN: run.stdout.trim() });
    expect(await verify(run.stdout.trim())).toMatchObject({
      oid: after.DEVELOPER_OBJECT_ID,
      name: "developer",
    });
    expect(run.stderr).toContain("Renewed TOKEN in");
  });

  it("uses the issuer of the running stack's file over a shell's older AUTH_AUTHORITY", async () => {
    const stale = "http://127.0.0.1:1/00000000-0000-4000-8000-00000000a11d/v2.0";
    const run = await token(["bob"], { LOCAL_DATA_DIR: dataDir, AUTH_AUTHORITY: stale });
    expect(run.code).toBe(0);
    await verify(run.stdout.trim());
  });

  it("without an env file, names the issuer on ISSUER_PORT", async () => {
    const own = tempDir("token-data-");
    writeFileSync(path.join(own, "issuer-key.json"), readFileSync(path.join(dataDir, "issuer-key.json")));
    const run = await token(["carol"], { LOCAL_DATA_DIR: own, ISSUER_PORT: String(issuer.port) });
    expect(run.code).toBe(0);
    await verify(run.stdout.trim());
  });

  it.each([
    [["--hours", "0"], /--hours takes a whole number of 1 or more/],
    [["alice", "--hours", "25"], /--hours takes a whole number from 1 to 24/],
    [["alice", "--hours", "x"], /--hours takes a whole number/],
    [["alice", "--bogus"], /Unknown option '--bogus'/],
    [["alice", "bob"], /Too many arguments/],
    [["--app"], /--app needs a name/],
    [[""], /The principal name is empty/],
    [["  "], /The principal name is empty/],
  ])("refuses %j with a message and no token", async (args, message) => {
    const run = await token(args, { LOCAL_DATA_DIR: dataDir });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(/^\s+at /m);
    expect(run.stdout).toBe("");
  });

  it("says to run npm start first when there is no key", async () => {
    const run = await token(["alice"], { LOCAL_DATA_DIR: tempDir("token-empty-") });
    expect(run).toMatchObject({ code: 1, stdout: "" });
    expect(run.stderr).toMatch(/^No local issuer key at .*issuer-key\.json: run `npm start` first/);
  });

  it("refuses when the stack's authority is not the local issuer", async () => {
    const authority = "https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/v2.0";
    const own = tempDir("token-data-");
    writeFileSync(path.join(own, "issuer-key.json"), readFileSync(path.join(dataDir, "issuer-key.json")));
    const run = await token(["alice"], { LOCAL_DATA_DIR: own, AUTH_AUTHORITY: authority });
    expect(run).toMatchObject({ code: 1, stdout: "" });
    expect(run.stderr).toContain(`AUTH_AUTHORITY is ${authority}, not the local issuer`);
  });
});
