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

type Run = { code: number | null; stdout: string; stderr: string };

function token(args: string[], env: Record<string, string>): Promise<Run> {
  // Nothing of the test's environment may point the command elsewhere.
  const clean = Object.entries(process.env).filter(([name]) => !/^(AUTH_|LOCAL_DATA_DIR$|TOKEN$)/.test(name));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(ROOT, "dist", "dev", "token-main.js"), ...args],
      { cwd: ROOT, env: { ...Object.fromEntries(clean), LOCAL_SETTINGS_FILE: settingsFile, ...env } },
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
  issuer = await startOpenIdIssuer({ port, keyFile: path.join(dataDir, "issuer-key.json") });
  const settings = { FUNCTION_KEY: "f", MASTER_KEY: "m", LOCAL_DATA_DIR: dataDir, ISSUER_PORT: String(port) };
  writeLocalEnvFile(planStack(settings), undefined, "old.developer.token");
});

afterAll(async () => {
  await issuer?.close();
  removeTempDirs();
});

/** A data folder with the key and no env file. */
function copyOfData(): string {
  const own = tempDir("token-data-");
  writeFileSync(path.join(own, "issuer-key.json"), readFileSync(path.join(dataDir, "issuer-key.json")));
  return own;
}

async function verify(jwt: string) {
  const { payload } = await jwtVerify(jwt, createRemoteJWKSet(new URL(issuer.jwksUri())), {
    issuer: issuer.authority,
    audience: [LOCAL_CLIENT_ID, LOCAL_APP_ID_URI],
    algorithms: ["RS256"],
  });
  return payload;
}

describe("npm run token", () => {
  it("prints only a user token for the name (an app's with --app, for --hours), signed by the issuer npm start ran", async () => {
    const run = await token(["alice"], { LOCAL_DATA_DIR: dataDir });
    expect(run).toMatchObject({ code: 0 });
    expect(run.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    const payload = await verify(run.stdout.trim());
    expect(payload).toMatchObject({ oid: principalObjectId("alice"), scp: "user_impersonation" });
    expect((payload.exp as number) - (payload.iat as number)).toBe(8 * 3600);
    expect(run.stderr).toContain(`user alice (object id ${principalObjectId("alice")}), valid 8 h`);
    // Naming a principal, even the developer, leaves the file's token alone.
    expect(readLocalEnvFile({ LOCAL_DATA_DIR: dataDir }).TOKEN).toBe("old.developer.token");
    const app = await verify(
      (await token(["ingest", "--app", "--hours", "2"], { LOCAL_DATA_DIR: dataDir })).stdout.trim(),
    );
    expect(app).toMatchObject({ oid: principalObjectId("ingest"), idtyp: "app" });
    expect(app).not.toHaveProperty("scp");
    expect((app.exp as number) - (app.iat as number)).toBe(2 * 3600);
    // The running stack's env file wins over a shell's older AUTH_AUTHORITY.
    const stale = "http://127.0.0.1:1/00000000-0000-4000-8000-00000000a11d/v2.0";
    await verify((await token(["bob"], { LOCAL_DATA_DIR: dataDir, AUTH_AUTHORITY: stale })).stdout.trim());
  });

  it("without a name renews the developer's TOKEN in .local/local.env and prints it", async () => {
    const before = readLocalEnvFile({ LOCAL_DATA_DIR: dataDir });
    const run = await token([], { LOCAL_DATA_DIR: dataDir });
    const after = readLocalEnvFile({ LOCAL_DATA_DIR: dataDir });
    expect(after).toEqual({ ...before, TOKEN: run.stdout.trim() });
    expect(await verify(run.stdout.trim())).toMatchObject({
      oid: after.DEVELOPER_OBJECT_ID,
      name: "developer",
    });
    expect(run.stderr).toContain("Renewed TOKEN in");
  });

  // Its command line is client/cli/args.ts's, tested with it; a stopped stack, the walkthrough's.
  it("refuses, with a message and no token, an authority other than the local issuer", async () => {
    const entra = "https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/v2.0";
    const run = await token(["alice"], { LOCAL_DATA_DIR: copyOfData(), AUTH_AUTHORITY: entra });
    expect(run).toMatchObject({ code: 1, stdout: "" });
    expect(run.stderr).toMatch(
      /^AUTH_AUTHORITY is https:\/\/login\.microsoftonline\.com\/.*, not the local issuer/,
    );
    expect(run.stderr).not.toMatch(/^\s+at /m);
  });
});
