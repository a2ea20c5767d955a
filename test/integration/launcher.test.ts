import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { readLocalEnvFile } from "../../dev/local-env-file";
import { freePort, isPortFree } from "../../dev/ports";
import { LOCAL_CLIENT_ID, LOCAL_TENANT_ID, principalObjectId } from "../../dev/stand-ins/openid-issuer";
import { removeTempDirs, tempDir } from "../support/temp-dirs";

// `npm start` over the wire: the built launcher runs as a child process on free ports, with a
// throw-away data folder and settings file, and is judged by what it prints and serves.

const ROOT = path.join(__dirname, "..", "..");
const FUNCTION_KEY = "launcher-test-function-key";
const MASTER_KEY = "launcher-test-master-key";
const STARTUP_TIMEOUT_MS = 120_000;
const ENDPOINT_PATH =
  "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/plant/endpoints/rotated";
const PORT_VARIABLES = [
  "PORT",
  "AZURITE_BLOB_PORT",
  "AZURITE_QUEUE_PORT",
  "COSMOS_PORT",
  "SERVICEBUS_PORT",
  "ISSUER_PORT",
  "SERVICEBUS_TLS_PORT",
  "AZURITE_BLOB_TLS_PORT",
  "IDENTITY_PORT",
];

interface Launcher {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const launched: Launcher[] = [];

function settingsFile(values: Record<string, string>): string {
  const file = path.join(tempDir("launcher-settings-"), "local.settings.json");
  writeFileSync(file, JSON.stringify({ IsEncrypted: false, Values: values }));
  return file;
}

const testSettings = settingsFile({
  FUNCTIONS_WORKER_RUNTIME: "node",
  FUNCTION_KEY,
  MASTER_KEY,
  COSMOS_DATABASE: "launcher-test",
});

async function freePorts(): Promise<Record<string, string>> {
  const ports = new Set<number>();
  while (ports.size < PORT_VARIABLES.length) ports.add(await freePort());
  const values = [...ports];
  return Object.fromEntries(PORT_VARIABLES.map((variable, index) => [variable, String(values[index])]));
}

/** The test's own environment minus anything that would point the launcher at real services. */
function cleanEnvironment(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) =>
        !name.startsWith("AzureWebJobsStorage") &&
        !name.startsWith("COSMOS_") &&
        !name.startsWith("SECRETS_ENCRYPTION_") &&
        !name.startsWith("AUTH_") &&
        !["PORT", "LOCAL_DATA_DIR", "FUNCTION_KEY", "MASTER_KEY", "TOKEN"].includes(name),
    ),
  );
}

function launch(env: Record<string, string>, script = "dist/dev/start.js"): Launcher {
  const child = spawn(process.execPath, [path.join(ROOT, script)], {
    cwd: ROOT,
    env: { ...cleanEnvironment(), LOCAL_SETTINGS_FILE: testSettings, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  // "close", not "exit": the launcher's children inherit its output, so the pipes stay open until
  // the last of them has gone too. A test that went on at "exit" left them to this Jest worker,
  // which then could not exit in time at the end of a run ("failed to exit gracefully").
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("close", (code, signal) => resolve({ code, signal })),
  );
  const launcher = { child, stdout: () => stdout, stderr: () => stderr, exited };
  launched.push(launcher);
  return launcher;
}

async function waitForSummary(launcher: Launcher): Promise<void> {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  let exited = false;
  void launcher.exited.then(() => {
    exited = true;
  });
  while (!launcher.stdout().includes("Local stack is running")) {
    if (exited || Date.now() > deadline) {
      throw new Error(`the launcher did not come up:\n${launcher.stdout()}\n${launcher.stderr()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Every process below the given one (the launcher's children and Azurite under its wrapper). */
function descendants(pid: number): { pid: number; args: string }[] {
  const table = execFileSync("ps", ["-eo", "pid=,ppid=,args="], { encoding: "utf8" })
    .split("\n")
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ pid: Number(match[1]), ppid: Number(match[2]), args: match[3] as string }));
  const found: { pid: number; args: string }[] = [];
  const walk = (parent: number) => {
    for (const row of table.filter((candidate) => candidate.ppid === parent)) {
      found.push({ pid: row.pid, args: row.args });
      walk(row.pid);
    }
  };
  walk(pid);
  return found;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function expectAllPortsFree(ports: Record<string, string>): Promise<void> {
  for (const variable of PORT_VARIABLES) {
    expect({ variable, free: await isPortFree(Number(ports[variable])) }).toEqual({ variable, free: true });
  }
}

function fetchWithKey(baseUrl: string, urlPath: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("x-functions-key", FUNCTION_KEY);
  return fetch(`${baseUrl}${urlPath}`, { ...init, headers });
}

// The launcher under test is the compiled one, exactly what `npm start` runs: global setup builds it.

afterAll(async () => {
  // A failed test must not leave a stack running: stop it, and kill it if it will not stop.
  for (const { child, exited } of launched) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    await exited;
    clearTimeout(timer);
  }
  removeTempDirs();
}, 120_000);

// The process contract (health, the printed example, stopping, restoring), with the function keys.
describe("npm start", () => {
  const dataDir = tempDir("launcher-data-");
  let first: { launcher: Launcher; ports: Record<string, string>; children: { pid: number; args: string }[] };

  it(
    "becomes healthy and prints a curl example that creates a profile as written (201)",
    async () => {
      const ports = await freePorts();
      const launcher = launch({ ...ports, LOCAL_DATA_DIR: dataDir, AUTH_MODE: "keys" });
      await waitForSummary(launcher);
      const output = launcher.stdout();
      const baseUrl = `http://127.0.0.1:${ports.PORT}`;
      expect(output).toContain(`Functions host   ${baseUrl}`);
      expect(output).toContain(`http://127.0.0.1:${ports.AZURITE_BLOB_PORT}/devstoreaccount1`);
      expect(output).toContain(`https://127.0.0.1:${ports.COSMOS_PORT}/`);
      expect(output).toContain(path.join(dataDir, "cosmos-snapshot.json"));
      expect(output).toContain(FUNCTION_KEY);
      expect(output).toContain(MASTER_KEY);

      expect((await fetch(`${baseUrl}/health`)).status).toBe(200);
      const lines = output.split("\n");
      const curl = lines[lines.findIndex((line) => line.startsWith("Try:")) + 1];
      expect(curl?.trim().startsWith("curl -X PUT")).toBe(true);

      expect(curl).toBeDefined();
      const status = execFileSync("bash", ["-c", `${curl} -s -o /dev/null -w '%{http_code}'`], {
        encoding: "utf8",
      });
      expect(status).toBe("201");
      const stored = await fetchWithKey(baseUrl, "/authenticationProfiles/example");
      expect(stored.status).toBe(200);
      const profile = (await stored.json()) as { authenticationProfileContent: string };
      expect(JSON.parse(profile.authenticationProfileContent)).toEqual({
        AllowDBUserOverride: "1",
        Client_ID: "ExampleClientID",
        App_ID: "example",
      });
      const put = await fetchWithKey(baseUrl, "/authenticationProfiles/second", {
        method: "PUT",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ authenticationProfileContent: '{"a":"b"}' }),
      });
      expect(put.status).toBe(201);
      // An endpoint, whose secrets are sealed under the local key (rotated below).
      const connection = readLocalEnvFile({ LOCAL_DATA_DIR: dataDir }).SERVICEBUS_CONNECTION as string;
      const endpoint = await fetchWithKey(baseUrl, ENDPOINT_PATH, {
        method: "PUT",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          queuePrimaryConnectionString: connection,
          queueSecondaryConnectionString: connection,
        }),
      });
      expect(endpoint.status).toBe(201);
      first = { launcher, ports, children: descendants(launcher.child.pid as number) };
    },
    STARTUP_TIMEOUT_MS + 30_000,
  );

  it("stops every child on SIGTERM, snapshots, frees its ports and exits 0", async () => {
    expect(first).toBeDefined();
    const { launcher, ports, children } = first;
    // The host, the Cosmos server, the Azurite wrapper, and Azurite's blob and queue processes.
    expect(children.length).toBeGreaterThanOrEqual(5);
    launcher.child.kill("SIGTERM");
    expect(await launcher.exited).toEqual({ code: 0, signal: null });
    expect(children.filter(({ pid }) => isAlive(pid))).toEqual([]);
    await expectAllPortsFree(ports);
    expect(existsSync(path.join(dataDir, "cosmos-snapshot.json"))).toBe(true);
    const secretsKey = readFileSync(path.join(dataDir, "secrets-encryption-key"), "utf8").trim();
    expect(launcher.stdout()).toContain(
      `generated a local key into ${path.join(dataDir, "secrets-encryption-key")}`,
    );
    expect(launcher.stdout()).not.toContain(secretsKey);
    expect(launcher.stderr()).toBe("");
  }, 90_000);

  it("npm run rotate-key replaces the local key and keeps the old one", () => {
    const keyFile = path.join(dataDir, "secrets-encryption-key");
    const before = readFileSync(keyFile, "utf8");
    const output = execFileSync(process.execPath, [path.join(ROOT, "dist", "dev", "rotate-key-main.js")], {
      cwd: ROOT,
      env: { ...cleanEnvironment(), LOCAL_SETTINGS_FILE: testSettings, LOCAL_DATA_DIR: dataDir },
      encoding: "utf8",
    });
    expect(output).toContain("1 previous key");
    expect(output).not.toContain(before.trim());
    expect(readFileSync(keyFile, "utf8")).not.toBe(before);
    expect(readFileSync(path.join(dataDir, "secrets-encryption-previous-keys"), "utf8")).toBe(before);
  });

  it(
    "restores the profiles when started again with the same data folder, and after a key rotation opens the endpoint",
    async () => {
      const ports = await freePorts();
      const launcher = launch({ ...ports, LOCAL_DATA_DIR: dataDir, AUTH_MODE: "keys" });
      await waitForSummary(launcher);
      const baseUrl = `http://127.0.0.1:${ports.PORT}`;
      expect(launcher.stdout()).toContain(
        `local key from ${path.join(dataDir, "secrets-encryption-key")} (and 1 previous key, npm run rotate-key)`,
      );
      // A plain restart after `npm run rotate-key`: the endpoint sealed under the old key opens.
      const endpoint = await fetchWithKey(baseUrl, ENDPOINT_PATH);
      expect(endpoint.status).toBe(200);
      expect(((await endpoint.json()) as Record<string, string>).queuePrimaryConnectionString).toContain(
        "SharedAccessKey=***",
      );
      const list = await fetchWithKey(baseUrl, "/authenticationProfiles");
      expect(list.status).toBe(200);
      const { value } = (await list.json()) as { value: { id: string }[] };
      const names = value.map(({ id }) => id).sort();
      expect(names).toEqual(["example", "second"]);
      launcher.child.kill("SIGTERM");
      expect(await launcher.exited).toEqual({ code: 0, signal: null });
      await expectAllPortsFree(ports);
    },
    STARTUP_TIMEOUT_MS + 60_000,
  );

  it(
    "keeps every profile it answered 201 for when every process is killed with SIGKILL",
    async () => {
      const dir = tempDir("launcher-data-");
      const ports = await freePorts();
      // Keys mode: fetchWithKey calls with the function key, which AUTH_MODE=entra refuses.
      const launcher = launch({ ...ports, LOCAL_DATA_DIR: dir, AUTH_MODE: "keys" });
      await waitForSummary(launcher);
      const baseUrl = `http://127.0.0.1:${ports.PORT}`;
      const names = ["crash-1", "crash-2", "crash-3", "crash-4"];
      for (const name of names) {
        const put = await fetchWithKey(baseUrl, `/authenticationProfiles/${name}`, {
          method: "PUT",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ authenticationProfileContent: `{"name":"${name}"}` }),
        });
        expect(put.status).toBe(201);
      }
      // No clean stop anywhere: the launcher and every process below it die at once.
      const everyone = [
        launcher.child.pid as number,
        ...descendants(launcher.child.pid as number).map((p) => p.pid),
      ];
      for (const pid of everyone) process.kill(pid, "SIGKILL");
      await launcher.exited;
      for (let tries = 0; everyone.some(isAlive) && tries < 100; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }

      const again = launch({ ...(await freePorts()), LOCAL_DATA_DIR: dir, AUTH_MODE: "keys" });
      await waitForSummary(again);
      const againUrl = /Functions host\s+(http:\/\/\S+)/.exec(again.stdout())?.[1] as string;
      for (const name of names) {
        const read = await fetchWithKey(againUrl, `/authenticationProfiles/${name}`);
        expect({ name, status: read.status }).toEqual({ name, status: 200 });
        const profile = (await read.json()) as { authenticationProfileContent: string };
        expect(profile.authenticationProfileContent).toBe(`{"name":"${name}"}`);
      }
      again.child.kill("SIGTERM");
      expect(await again.exited).toEqual({ code: 0, signal: null });
    },
    2 * STARTUP_TIMEOUT_MS + 60_000,
  );

  it.each([
    ["Functions host", "local-host-main.js"],
    ["Azurite", "azurite-main.js"],
  ])(
    "stops the others, leaves no process behind and exits 1 naming the %s when it dies",
    async (name, script) => {
      const ports = await freePorts();
      const launcher = launch({
        ...ports,
        LOCAL_DATA_DIR: tempDir("launcher-data-"),
      });
      await waitForSummary(launcher);
      const children = descendants(launcher.child.pid as number);
      const victim = children.find(({ args }) => args.includes(script));
      expect(victim).toBeDefined();
      process.kill(victim?.pid as number, "SIGKILL");
      expect(await launcher.exited).toEqual({ code: 1, signal: null });
      expect(launcher.stderr()).toContain(`${name} stopped unexpectedly (signal SIGKILL)`);
      expect(children.filter(({ pid }) => isAlive(pid))).toEqual([]);
      await expectAllPortsFree(ports);
    },
    STARTUP_TIMEOUT_MS + 60_000,
  );
});

// The default: Entra ID tokens from the local OpenID issuer, which runs in the launcher's process.
describe("npm start with the local issuer", () => {
  const dataDir = tempDir("launcher-data-");
  let firstKid: string | undefined;

  async function verifyToken(token: string, authority: string) {
    const discovery = (await (await fetch(`${authority}/.well-known/openid-configuration`)).json()) as {
      issuer: string;
      jwks_uri: string;
    };
    return jwtVerify(token, createRemoteJWKSet(new URL(discovery.jwks_uri)), {
      issuer: discovery.issuer,
      audience: LOCAL_CLIENT_ID,
      algorithms: ["RS256"],
    });
  }

  it(
    "serves discovery and keys, writes the developer's token, says how to get tokens, and stops the issuer",
    async () => {
      const ports = await freePorts();
      const launcher = launch({ ...ports, LOCAL_DATA_DIR: dataDir });
      await waitForSummary(launcher);
      const authority = `http://127.0.0.1:${ports.ISSUER_PORT}/${LOCAL_TENANT_ID}/v2.0`;
      const output = launcher.stdout();
      expect(output).toContain(`issuer           ${authority}`);
      expect(output).toContain("npm run token");
      expect(output).toContain(`-H "Authorization: Bearer $TOKEN"`);
      expect(output).not.toContain(FUNCTION_KEY);
      expect((await fetch(`http://127.0.0.1:${ports.PORT}/health`)).status).toBe(200);

      const env = readLocalEnvFile({ LOCAL_DATA_DIR: dataDir });
      expect(env).toMatchObject({
        AUTH_AUTHORITY: authority,
        DEVELOPER_OBJECT_ID: principalObjectId("developer"),
      });
      const { payload, protectedHeader } = await verifyToken(env.TOKEN as string, authority);
      expect(payload).toMatchObject({
        oid: principalObjectId("developer"),
        tid: LOCAL_TENANT_ID,
        ver: "2.0",
      });
      expect((payload.exp as number) - (payload.iat as number)).toBe(8 * 3600);
      expect(output).not.toContain(env.TOKEN as string);
      const keyFile = path.join(dataDir, "issuer-key.json");
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      firstKid = protectedHeader.kid;

      launcher.child.kill("SIGTERM");
      expect(await launcher.exited).toEqual({ code: 0, signal: null });
      expect(launcher.stderr()).toBe("");
      await expectAllPortsFree(ports);
    },
    STARTUP_TIMEOUT_MS + 60_000,
  );

  it(
    "signs with the same key when started again with the same data folder",
    async () => {
      expect(firstKid).toBeDefined();
      const ports = await freePorts();
      const launcher = launch({ ...ports, LOCAL_DATA_DIR: dataDir });
      await waitForSummary(launcher);
      const env = readLocalEnvFile({ LOCAL_DATA_DIR: dataDir });
      expect(env.AUTH_AUTHORITY).toBe(`http://127.0.0.1:${ports.ISSUER_PORT}/${LOCAL_TENANT_ID}/v2.0`);
      const { protectedHeader } = await verifyToken(env.TOKEN as string, env.AUTH_AUTHORITY as string);
      expect(protectedHeader.kid).toBe(firstKid);
      launcher.child.kill("SIGTERM");
      expect(await launcher.exited).toEqual({ code: 0, signal: null });
      await expectAllPortsFree(ports);
    },
    STARTUP_TIMEOUT_MS + 60_000,
  );
});

describe("npm start refuses to start", () => {
  it("when the issuer's port is in use: exit 1 naming ISSUER_PORT", async () => {
    const ports = await freePorts();
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(Number(ports.ISSUER_PORT), "127.0.0.1", resolve));
    try {
      const launcher = launch({ ...ports, LOCAL_DATA_DIR: tempDir("launcher-data-") });
      expect(await launcher.exited).toEqual({ code: 1, signal: null });
      expect(launcher.stderr()).toBe(
        `Port ${ports.ISSUER_PORT} is already in use; set ISSUER_PORT to another port.\n`,
      );
      await expectAllPortsFree({ ...ports, ISSUER_PORT: "0" });
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  }, 60_000);

  it("when a port is in use: exit 1 and one line naming the variable", async () => {
    const ports = await freePorts();
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(Number(ports.COSMOS_PORT), "127.0.0.1", resolve));
    try {
      const launcher = launch({
        ...ports,
        LOCAL_DATA_DIR: tempDir("launcher-data-"),
      });
      expect(await launcher.exited).toEqual({ code: 1, signal: null });
      expect(launcher.stderr()).toBe(
        `Port ${ports.COSMOS_PORT} is already in use; set COSMOS_PORT to another port.\n`,
      );
      expect(launcher.stdout()).toBe("");
      await expectAllPortsFree({ ...ports, COSMOS_PORT: "0" });
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  }, 60_000);

  it("when several ports are in use: exit 1 and one message naming every one of them", async () => {
    const ports = await freePorts();
    const busy = ["AZURITE_QUEUE_PORT", "COSMOS_PORT", "ISSUER_PORT"];
    const blockers = await Promise.all(
      busy.map(async (variable) => {
        const blocker = net.createServer();
        await new Promise<void>((resolve) => blocker.listen(Number(ports[variable]), "127.0.0.1", resolve));
        return blocker;
      }),
    );
    try {
      const launcher = launch({ ...ports, LOCAL_DATA_DIR: tempDir("launcher-data-") });
      expect(await launcher.exited).toEqual({ code: 1, signal: null });
      expect(launcher.stderr()).toBe(
        `Ports already in use: ${ports.AZURITE_QUEUE_PORT} (AZURITE_QUEUE_PORT), ${ports.COSMOS_PORT} (COSMOS_PORT), ${ports.ISSUER_PORT} (ISSUER_PORT); set AZURITE_QUEUE_PORT, COSMOS_PORT, ISSUER_PORT to other ports.\n`,
      );
      expect(launcher.stdout()).toBe("");
      await expectAllPortsFree({ ...ports, AZURITE_QUEUE_PORT: "0", COSMOS_PORT: "0", ISSUER_PORT: "0" });
    } finally {
      await Promise.all(blockers.map((blocker) => new Promise((resolve) => blocker.close(resolve))));
    }
  }, 60_000);

  it("when a setting is invalid: exit 1 and a message naming it", async () => {
    const ports = await freePorts();
    const launcher = launch({
      ...ports,
      LOCAL_DATA_DIR: tempDir("launcher-data-"),
      AUTH_PROFILE_MAX_COUNT: "abc",
    });
    expect(await launcher.exited).toEqual({ code: 1, signal: null });
    expect(launcher.stderr()).toContain("AUTH_PROFILE_MAX_COUNT");
    expect(launcher.stderr()).not.toMatch(/^\s+at /m);
    await expectAllPortsFree(ports);
  }, 60_000);

  it("without the local keys: exit 1 naming them", async () => {
    const launcher = launch({
      ...(await freePorts()),
      LOCAL_SETTINGS_FILE: settingsFile({ FUNCTIONS_WORKER_RUNTIME: "node" }),
    });
    expect(await launcher.exited).toEqual({ code: 1, signal: null });
    expect(launcher.stderr()).toMatch(/^FUNCTION_KEY and MASTER_KEY must be set .*\n$/);
  }, 60_000);

  it("as the bare local host without keys: exit 1 with one line naming them", async () => {
    const host = launch({ ...(await freePorts()) }, "dist/dev/local-host-main.js");
    expect(await host.exited).toEqual({ code: 1, signal: null });
    expect(host.stderr()).toMatch(/^Functions host: FUNCTION_KEY and MASTER_KEY must be set[^\n]*\n$/);
  }, 60_000);
});
