import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { ServiceBusClient } from "@azure/service-bus";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { readLocalEnvFile } from "../../dev/local-env-file";
import { freePorts as freePortsFor, isPortFree } from "../../dev/ports";
import { startStack } from "../../dev/stack";
import { DEFAULT_PORTS } from "../../dev/stack-plan";
import { LOCAL_TENANT_ID, principalObjectId } from "../../dev/stand-ins/openid-issuer";
import { removeTempDirs, tempDir } from "../support/temp-dirs";

// `npm start` over the wire: the built launcher (global setup builds it) as a child process on free
// ports, with a throw-away data folder and settings file, judged by what it prints and serves; and
// startStack, the same stack for the tests, the bench and the load run.

const ROOT = path.join(__dirname, "..", "..");
const FUNCTION_KEY = "launcher-test-function-key";
const STARTUP_MS = 120_000;
const ENDPOINT_PATH =
  "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/plant/endpoints/rotated";
const PORT_VARIABLES = Object.keys(DEFAULT_PORTS);

type Launcher = { child: ChildProcess; stdout(): string; stderr(): string; exited: Promise<unknown> };
const launched: Launcher[] = [];

const testSettings = path.join(tempDir("launcher-settings-"), "local.settings.json");
writeFileSync(
  testSettings,
  JSON.stringify({
    Values: { FUNCTION_KEY, MASTER_KEY: "launcher-test-master-key", COSMOS_DATABASE: "launcher" },
  }),
);

const freePorts = (): Promise<Record<string, string>> => freePortsFor(PORT_VARIABLES);

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

/** Every process below the given one, with its command line. */
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

function alive(processes: { pid: number }[]): { pid: number }[] {
  return processes.filter(({ pid }) => {
    try {
      return process.kill(pid, 0);
    } catch {
      return false;
    }
  });
}

async function expectPortsFree(ports: Record<string, string>, except: string[] = []): Promise<void> {
  for (const variable of PORT_VARIABLES.filter((variable) => !except.includes(variable))) {
    expect({ variable, free: await isPortFree(Number(ports[variable])) }).toEqual({ variable, free: true });
  }
}

async function expectStopped(launcher: Launcher, ports: Record<string, string>): Promise<void> {
  const children = descendants(launcher.child.pid as number);
  launcher.child.kill("SIGTERM");
  expect(await launcher.exited).toEqual({ code: 0, signal: null });
  expect(alive(children)).toEqual([]);
  await expectPortsFree(ports);
}

/** A request as the developer (the token `npm start` wrote), or with the function key. */
function call(
  baseUrl: string,
  urlPath: string,
  as: { token: string } | "key",
  method = "GET",
  body?: unknown,
) {
  const auth: Record<string, string> =
    as === "key" ? { "x-functions-key": FUNCTION_KEY } : { Authorization: `Bearer ${as.token}` };
  return fetch(`${baseUrl}${urlPath}`, {
    method,
    headers: { ...auth, "Content-Type": "application/json" },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
}

/** The developer's token in the env file (the host's answers judge its signature); its key id. */
function developerToken(dataDir: string, authority: string): { token: string; kid: string } {
  const token = readLocalEnvFile({ LOCAL_DATA_DIR: dataDir }).TOKEN as string;
  const payload = decodeJwt(token);
  expect(payload).toMatchObject({
    iss: authority,
    oid: principalObjectId("developer"),
    tid: LOCAL_TENANT_ID,
  });
  expect((payload.exp as number) - (payload.iat as number)).toBe(8 * 3600);
  return { token, kid: decodeProtectedHeader(token).kid as string };
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

describe("npm start", () => {
  const dataDir = tempDir("launcher-data-");
  const keyFile = path.join(dataDir, "secrets-encryption-key");
  let firstKid: string | undefined;

  it(
    "prints what runs where, serves the local issuer and writes the developer's token; the printed curl works; SIGTERM stops every child",
    async () => {
      const ports = await freePorts();
      const launcher = await started({ ...ports, LOCAL_DATA_DIR: dataDir });
      const output = launcher.stdout();
      const baseUrl = `http://127.0.0.1:${ports.PORT}`;
      const authority = `http://127.0.0.1:${ports.ISSUER_PORT}/${LOCAL_TENANT_ID}/v2.0`;
      expect(output).toContain(`Functions host   ${baseUrl}`);
      expect(output).toContain(`http://127.0.0.1:${ports.AZURITE_BLOB_PORT}/devstoreaccount1`);
      expect(output).toContain(`https://127.0.0.1:${ports.COSMOS_PORT}/`);
      expect(output).toContain(`generated a local key into ${keyFile}`);
      expect(output).toContain(`issuer           ${authority}`);
      expect(output).not.toContain(FUNCTION_KEY);
      const { token, kid } = developerToken(dataDir, authority);
      firstKid = kid;
      expect(output).not.toContain(token);
      expect(statSync(path.join(dataDir, "issuer-key.json")).mode & 0o777).toBe(0o600);
      // As the README has it: in a shell that sourced the env file, the curl the summary printed.
      const lines = output.split("\n");
      const curl = lines[lines.findIndex((line) => line.startsWith("Try")) + 1] as string;
      const script = `source ${path.join(dataDir, "local.env")} && ${curl} -s -o /dev/null -w '%{http_code}'`;
      expect(execFileSync("bash", ["-c", script], { encoding: "utf8", env: cleanEnvironment() })).toBe("201");
      // An endpoint, its secrets sealed under the local key (rotated below).
      const connection = readLocalEnvFile({ LOCAL_DATA_DIR: dataDir }).SERVICEBUS_CONNECTION;
      const body = { queuePrimaryConnectionString: connection, queueSecondaryConnectionString: connection };
      expect((await call(baseUrl, ENDPOINT_PATH, { token }, "PUT", body)).status).toBe(201);
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
    "keeps the data and the issuer's key across a restart on moved ports, and after npm run rotate-key opens the endpoint",
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
      const launcher = await started({ ...ports, LOCAL_DATA_DIR: dataDir });
      const baseUrl = `http://127.0.0.1:${ports.PORT}`;
      expect(launcher.stdout()).toContain(
        `local key from ${keyFile} (and 1 previous key, npm run rotate-key)`,
      );
      const authority = `http://127.0.0.1:${ports.ISSUER_PORT}/${LOCAL_TENANT_ID}/v2.0`;
      const { token, kid } = developerToken(dataDir, authority);
      expect(kid).toBe(firstKid);
      const endpoint = await call(baseUrl, ENDPOINT_PATH, { token });
      expect(((await endpoint.json()) as Record<string, string>).queuePrimaryConnectionString).toContain(
        "SharedAccessKey=***",
      );
      const { value } = (await (await call(baseUrl, "/authenticationProfiles", { token })).json()) as {
        value: { id: string }[];
      };
      expect(value.map(({ id }) => id)).toEqual(["example"]);
      await expectStopped(launcher, ports);
    },
    STARTUP_MS + 60_000,
  );

  it(
    "under AUTH_MODE=keys prints the keys; leaves no child behind when killed with SIGKILL, and loses no answered write",
    async () => {
      const dir = tempDir("launcher-data-");
      const launcher = await started({ ...(await freePorts()), LOCAL_DATA_DIR: dir, AUTH_MODE: "keys" });
      expect(launcher.stdout()).toContain(`function key     ${FUNCTION_KEY}`);
      const baseUrl = /Functions host\s+(http:\/\/\S+)/.exec(launcher.stdout())?.[1] as string;
      const names = ["crash-1", "crash-2", "crash-3"];
      for (const name of names) {
        const body = { authenticationProfileContent: `{"name":"${name}"}` };
        expect((await call(baseUrl, `/authenticationProfiles/${name}`, "key", "PUT", body)).status).toBe(201);
      }
      const children = descendants(launcher.child.pid as number);
      launcher.child.kill("SIGKILL");
      await launcher.exited;
      // Each child stops on its own once its IPC channel closes (the host lets running handlers finish).
      for (let tries = 0; alive(children).length > 0 && tries < 450; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(alive(children)).toEqual([]);

      const ports = await freePorts();
      const again = await started({ ...ports, LOCAL_DATA_DIR: dir, AUTH_MODE: "keys" });
      for (const name of names) {
        const read = await call(`http://127.0.0.1:${ports.PORT}`, `/authenticationProfiles/${name}`, "key");
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
      expect(alive(children)).toEqual([]);
      await expectPortsFree(ports);
    },
    STARTUP_MS + 60_000,
  );
});

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
      await expectPortsFree(ports, busy);
    } finally {
      await Promise.all(blockers.map((blocker) => new Promise((resolve) => blocker.close(resolve))));
    }
  }, 60_000);

  it("when a setting is invalid, naming it, with no stack trace", async () => {
    const env = {
      ...(await freePorts()),
      LOCAL_DATA_DIR: tempDir("launcher-data-"),
      AUTH_PROFILE_MAX_COUNT: "abc",
    };
    const launcher = launch(env);
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

it("startStack (tests, bench, load): every part a child on free ports, in memory; stop() leaves no process and nothing on disk", async () => {
  const before = new Set(descendants(process.pid).map(({ pid }) => pid));
  const dataDir = tempDir("stack-data-");
  const stack = await startStack(
    {
      FUNCTION_KEY: "stack-test-key",
      MASTER_KEY: "stack-test-master-key",
      COSMOS_DATABASE: `stack-${randomUUID().slice(0, 8)}`,
      SECRETS_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      LOCAL_DATA_DIR: dataDir,
    },
    { persistent: false, host: true },
  );
  let children: { pid: number; args: string }[] = [];
  try {
    const health = await fetch(`${stack.baseUrl}/health`);
    expect(await health.json()).toEqual({ status: "ok", checks: { cosmos: "ok", storage: "ok" } });
    const client = new ServiceBusClient(stack.serviceBusConnectionString());
    await client.createSender("stack-topic").sendMessages({ body: "hello" });
    await client.close();
    expect(stack.serviceBusConnectionString("t")).toMatch(/;UseDevelopmentEmulator=true;EntityPath=t$/);
    // The local issuer (entra, the default) runs in this process, and the host trusts it.
    const authority = stack.issuer?.authority;
    expect(stack.plan.settings).toMatchObject({ AUTH_MODE: "entra", AUTH_AUTHORITY: authority });
    children = descendants(process.pid).filter(({ pid }) => !before.has(pid));
    const commands = children.map(({ args }) => args).join("\n");
    for (const script of [
      "azurite-main.js",
      "cosmos-server-main.js",
      "service-bus/main.js",
      "local-host-main.js",
    ]) {
      expect(commands).toContain(script);
    }
    expect(commands).toMatch(/--inMemoryPersistence/);
  } finally {
    expect((await stack.stop()).filter(({ clean }) => !clean)).toEqual([]);
  }
  expect(await isPortFree(stack.issuer?.port as number)).toBe(true);
  expect(readdirSync(dataDir)).toEqual([]); // the issuer's key included
  expect(alive(children)).toEqual([]);
}, 120_000);
