import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { readLocalEnvFile } from "../../dev/local-env-file";
import { freePort, isPortFree } from "../../dev/ports";
import { DEFAULT_PORTS } from "../../dev/stack-plan";
import { LOCAL_CLIENT_ID, LOCAL_TENANT_ID, principalObjectId } from "../../dev/stand-ins/openid-issuer";
import { removeTempDirs, tempDir } from "../support/temp-dirs";

// `npm start` over the wire: the built launcher (global setup builds it) as a child process on free
// ports, with a throw-away data folder and settings file, judged by what it prints and serves.

const ROOT = path.join(__dirname, "..", "..");
const FUNCTION_KEY = "launcher-test-function-key";
const STARTUP_MS = 120_000;
const ENDPOINT_PATH =
  "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/plant/endpoints/rotated";
const PORT_VARIABLES = Object.keys(DEFAULT_PORTS);

type Launcher = { child: ChildProcess; stdout(): string; stderr(): string; exited: Promise<unknown> };
const launched: Launcher[] = [];

function settingsFile(values: Record<string, string>): string {
  const file = path.join(tempDir("launcher-settings-"), "local.settings.json");
  writeFileSync(file, JSON.stringify({ IsEncrypted: false, Values: values }));
  return file;
}
const testSettings = settingsFile({
  FUNCTION_KEY,
  MASTER_KEY: "launcher-test-master-key",
  COSMOS_DATABASE: "launcher",
});

async function freePorts(): Promise<Record<string, string>> {
  const ports = new Set<number>();
  while (ports.size < PORT_VARIABLES.length) ports.add(await freePort());
  return Object.fromEntries(PORT_VARIABLES.map((variable, index) => [variable, String([...ports][index])]));
}

/** The test's environment minus anything that would point the launcher at real services. */
function cleanEnvironment(): NodeJS.ProcessEnv {
  const dropped =
    /^(AzureWebJobsStorage|COSMOS_|SECRETS_ENCRYPTION_|AUTH_|(PORT|LOCAL_DATA_DIR|FUNCTION_KEY|MASTER_KEY|TOKEN)$)/;
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !dropped.test(name)));
}

function launch(env: Record<string, string>, script = "dist/dev/start.js"): Launcher {
  const child = spawn(process.execPath, [path.join(ROOT, script)], {
    cwd: ROOT,
    env: { ...cleanEnvironment(), LOCAL_SETTINGS_FILE: testSettings, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  // "close", not "exit": the children inherit the pipes, so they close once the last of them is gone.
  const exited = new Promise((resolve) => child.once("close", (code, signal) => resolve({ code, signal })));
  const launcher = { child, stdout: () => stdout, stderr: () => stderr, exited };
  launched.push(launcher);
  return launcher;
}

async function started(env: Record<string, string>): Promise<Launcher> {
  const launcher = launch(env);
  const deadline = Date.now() + STARTUP_MS;
  let exited = false;
  void launcher.exited.then(() => (exited = true));
  while (!launcher.stdout().includes("Local stack is running")) {
    if (exited || Date.now() > deadline)
      throw new Error(`no start:\n${launcher.stdout()}\n${launcher.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return launcher;
}

/** Every process below the given one. */
function descendants(pid: number): { pid: number; args: string }[] {
  const table = execFileSync("ps", ["-eo", "pid=,ppid=,args="], { encoding: "utf8" })
    .split("\n")
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((match) => match !== null)
    .map((match) => ({ pid: Number(match[1]), ppid: Number(match[2]), args: match[3] as string }));
  const below = (parent: number): { pid: number; args: string }[] =>
    table.filter((row) => row.ppid === parent).flatMap((row) => [row, ...below(row.pid)]);
  return below(pid);
}

function isAlive(pid: number): boolean {
  try {
    return process.kill(pid, 0);
  } catch {
    return false;
  }
}

async function expectStopped(launcher: Launcher, ports: Record<string, string>, code = 0): Promise<void> {
  const children = descendants(launcher.child.pid as number);
  launcher.child.kill("SIGTERM");
  expect(await launcher.exited).toEqual({ code, signal: null });
  expect(children.filter(({ pid }) => isAlive(pid))).toEqual([]);
  for (const variable of PORT_VARIABLES) {
    expect({ variable, free: await isPortFree(Number(ports[variable])) }).toEqual({ variable, free: true });
  }
}

function withKey(baseUrl: string, urlPath: string, method = "GET", body?: unknown): Promise<Response> {
  const headers = { "x-functions-key": FUNCTION_KEY, "Content-Type": "application/json" };
  return fetch(`${baseUrl}${urlPath}`, {
    method,
    headers,
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
}

afterAll(async () => {
  // A failed test must not leave a stack running.
  for (const { child, exited } of launched.filter(
    ({ child }) => child.exitCode === null && child.signalCode === null,
  )) {
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    await exited;
    clearTimeout(timer);
  }
  removeTempDirs();
}, 120_000);

describe("npm start (AUTH_MODE=keys)", () => {
  const dataDir = tempDir("launcher-data-");
  const keyFile = path.join(dataDir, "secrets-encryption-key");

  it(
    "prints what runs where and a curl example that works as printed; stops every child on SIGTERM",
    async () => {
      const ports = await freePorts();
      const launcher = await started({ ...ports, LOCAL_DATA_DIR: dataDir, AUTH_MODE: "keys" });
      const output = launcher.stdout();
      const baseUrl = `http://127.0.0.1:${ports.PORT}`;
      expect(output).toContain(`Functions host   ${baseUrl}`);
      expect(output).toContain(`http://127.0.0.1:${ports.AZURITE_BLOB_PORT}/devstoreaccount1`);
      expect(output).toContain(`https://127.0.0.1:${ports.COSMOS_PORT}/`);
      expect(output).toContain(`generated a local key into ${keyFile}`);
      const lines = output.split("\n");
      const curl = lines[lines.findIndex((line) => line.startsWith("Try:")) + 1] as string;
      expect(
        execFileSync("bash", ["-c", `${curl} -s -o /dev/null -w '%{http_code}'`], { encoding: "utf8" }),
      ).toBe("201");
      expect((await withKey(baseUrl, "/authenticationProfiles/example")).status).toBe(200);
      // An endpoint, its secrets sealed under the local key (rotated below).
      const connection = readLocalEnvFile({ LOCAL_DATA_DIR: dataDir }).SERVICEBUS_CONNECTION;
      const body = { queuePrimaryConnectionString: connection, queueSecondaryConnectionString: connection };
      expect((await withKey(baseUrl, ENDPOINT_PATH, "PUT", body)).status).toBe(201);
      // The host, the Cosmos server, Service Bus, the Azurite wrapper and Azurite's processes.
      expect(descendants(launcher.child.pid as number).length).toBeGreaterThanOrEqual(5);
      await expectStopped(launcher, ports);
      expect(existsSync(path.join(dataDir, "cosmos-snapshot.json"))).toBe(true);
      expect(launcher.stdout()).not.toContain(readFileSync(keyFile, "utf8").trim());
      expect(launcher.stderr()).toBe("");
    },
    STARTUP_MS + 60_000,
  );

  it(
    "keeps the data across a restart on moved ports, and after npm run rotate-key opens the endpoint",
    async () => {
      const before = readFileSync(keyFile, "utf8");
      const rotated = execFileSync(process.execPath, [path.join(ROOT, "dist", "dev", "rotate-key-main.js")], {
        cwd: ROOT,
        env: { ...cleanEnvironment(), LOCAL_SETTINGS_FILE: testSettings, LOCAL_DATA_DIR: dataDir },
        encoding: "utf8",
      });
      expect(rotated).toContain("1 previous key");
      expect(rotated).not.toContain(before.trim());
      expect(readFileSync(path.join(dataDir, "secrets-encryption-previous-keys"), "utf8")).toBe(before);

      const ports = await freePorts();
      const launcher = await started({ ...ports, LOCAL_DATA_DIR: dataDir, AUTH_MODE: "keys" });
      const baseUrl = `http://127.0.0.1:${ports.PORT}`;
      expect(launcher.stdout()).toContain(
        `local key from ${keyFile} (and 1 previous key, npm run rotate-key)`,
      );
      const endpoint = await withKey(baseUrl, ENDPOINT_PATH);
      expect(((await endpoint.json()) as Record<string, string>).queuePrimaryConnectionString).toContain(
        "SharedAccessKey=***",
      );
      const { value } = (await (await withKey(baseUrl, "/authenticationProfiles")).json()) as {
        value: { id: string }[];
      };
      expect(value.map(({ id }) => id)).toEqual(["example"]);
      await expectStopped(launcher, ports);
    },
    STARTUP_MS + 60_000,
  );

  it(
    "leaves no child behind when the launcher is killed with SIGKILL, and loses no answered write",
    async () => {
      const dir = tempDir("launcher-data-");
      const launcher = await started({ ...(await freePorts()), LOCAL_DATA_DIR: dir, AUTH_MODE: "keys" });
      const baseUrl = /Functions host\s+(http:\/\/\S+)/.exec(launcher.stdout())?.[1] as string;
      const names = ["crash-1", "crash-2", "crash-3"];
      for (const name of names) {
        const put = await withKey(baseUrl, `/authenticationProfiles/${name}`, "PUT", {
          authenticationProfileContent: `{"name":"${name}"}`,
        });
        expect(put.status).toBe(201);
      }
      const children = descendants(launcher.child.pid as number);
      launcher.child.kill("SIGKILL");
      await launcher.exited;
      // Each child stops on its own once its IPC channel closes (the host lets running handlers finish).
      for (let tries = 0; children.some(({ pid }) => isAlive(pid)) && tries < 450; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(children.filter(({ pid }) => isAlive(pid))).toEqual([]);

      const ports = await freePorts();
      const again = await started({ ...ports, LOCAL_DATA_DIR: dir, AUTH_MODE: "keys" });
      for (const name of names) {
        const read = await withKey(`http://127.0.0.1:${ports.PORT}`, `/authenticationProfiles/${name}`);
        expect({ name, status: read.status }).toEqual({ name, status: 200 });
      }
      await expectStopped(again, ports);
    },
    2 * STARTUP_MS + 60_000,
  );

  it.each([
    ["Functions host", "local-host-main.js"],
    ["Azurite", "azurite-main.js"],
  ])(
    "stops the others and exits 1 naming the %s when it dies",
    async (name, script) => {
      const ports = await freePorts();
      const launcher = await started({ ...ports, LOCAL_DATA_DIR: tempDir("launcher-data-") });
      const children = descendants(launcher.child.pid as number);
      process.kill(children.find(({ args }) => args.includes(script))?.pid as number, "SIGKILL");
      expect(await launcher.exited).toEqual({ code: 1, signal: null });
      expect(launcher.stderr()).toContain(`${name} stopped unexpectedly (signal SIGKILL)`);
      expect(children.filter(({ pid }) => isAlive(pid))).toEqual([]);
      for (const variable of PORT_VARIABLES) expect(await isPortFree(Number(ports[variable]))).toBe(true);
    },
    STARTUP_MS + 60_000,
  );
});

it(
  "by default serves the local issuer, writes the developer's token and signs with the same key after a restart",
  async () => {
    const dataDir = tempDir("launcher-data-");
    const kids: (string | undefined)[] = [];
    for (let round = 0; round < 2; round++) {
      const ports = await freePorts();
      const launcher = await started({ ...ports, LOCAL_DATA_DIR: dataDir });
      const authority = `http://127.0.0.1:${ports.ISSUER_PORT}/${LOCAL_TENANT_ID}/v2.0`;
      expect(launcher.stdout()).toContain(`issuer           ${authority}`);
      expect(launcher.stdout()).toContain(`-H "Authorization: Bearer $TOKEN"`);
      expect(launcher.stdout()).not.toContain(FUNCTION_KEY);
      const env = readLocalEnvFile({ LOCAL_DATA_DIR: dataDir });
      expect(env).toMatchObject({
        AUTH_AUTHORITY: authority,
        DEVELOPER_OBJECT_ID: principalObjectId("developer"),
      });
      const discovery = (await (await fetch(`${authority}/.well-known/openid-configuration`)).json()) as {
        issuer: string;
        jwks_uri: string;
      };
      const { payload, protectedHeader } = await jwtVerify(
        env.TOKEN as string,
        createRemoteJWKSet(new URL(discovery.jwks_uri)),
        { issuer: discovery.issuer, audience: LOCAL_CLIENT_ID, algorithms: ["RS256"] },
      );
      expect(payload).toMatchObject({ oid: principalObjectId("developer"), tid: LOCAL_TENANT_ID });
      expect((payload.exp as number) - (payload.iat as number)).toBe(8 * 3600);
      expect(launcher.stdout()).not.toContain(env.TOKEN as string);
      expect(statSync(path.join(dataDir, "issuer-key.json")).mode & 0o777).toBe(0o600);
      kids.push(protectedHeader.kid);
      await expectStopped(launcher, ports);
      expect(launcher.stderr()).toBe("");
    }
    expect(kids[1]).toBe(kids[0]);
  },
  2 * STARTUP_MS + 60_000,
);

describe("npm start refuses to start, in one line and before anything runs", () => {
  it("when ports are in use, naming every one and its variable", async () => {
    const ports = await freePorts();
    const busy = ["AZURITE_QUEUE_PORT", "COSMOS_PORT", "ISSUER_PORT"];
    const blockers = busy.map((variable) => net.createServer().listen(Number(ports[variable]), "127.0.0.1"));
    await Promise.all(
      blockers.map((blocker) => new Promise((resolve) => blocker.once("listening", resolve))),
    );
    try {
      const launcher = launch({ ...ports, LOCAL_DATA_DIR: tempDir("launcher-data-") });
      expect(await launcher.exited).toEqual({ code: 1, signal: null });
      expect(launcher.stderr()).toBe(
        `Ports already in use: ${busy.map((variable) => `${ports[variable]} (${variable})`).join(", ")}; set ${busy.join(", ")} to other ports.\n`,
      );
      expect(launcher.stdout()).toBe("");
      for (const variable of PORT_VARIABLES.filter((variable) => !busy.includes(variable))) {
        expect(await isPortFree(Number(ports[variable]))).toBe(true);
      }
    } finally {
      await Promise.all(blockers.map((blocker) => new Promise((resolve) => blocker.close(resolve))));
    }
  }, 60_000);

  it("when a setting is invalid, naming it, with no stack trace", async () => {
    const launcher = launch({
      ...(await freePorts()),
      LOCAL_DATA_DIR: tempDir("launcher-data-"),
      AUTH_PROFILE_MAX_COUNT: "abc",
    });
    expect(await launcher.exited).toEqual({ code: 1, signal: null });
    expect(launcher.stderr()).toContain("AUTH_PROFILE_MAX_COUNT");
    expect(launcher.stderr()).not.toMatch(/^\s+at /m);
  }, 60_000);

  it("as the bare local host without keys, naming them", async () => {
    const host = launch({ ...(await freePorts()) }, "dist/dev/local-host-main.js");
    expect(await host.exited).toEqual({ code: 1, signal: null });
    expect(host.stderr()).toMatch(/^Functions host: FUNCTION_KEY and MASTER_KEY must be set[^\n]*\n$/);
  }, 60_000);
});
