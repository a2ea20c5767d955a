import { execFileSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { readdirSync } from "node:fs";
import * as path from "node:path";
import { ServiceBusClient } from "@azure/service-bus";
import { isPortFree } from "../../dev/ports";
import { startStack } from "../../dev/stack";
import { removeTempDirs, tempDir } from "../support/temp-dirs";

// dev/stack.ts as the benchmarks and the load run use it: the stand-ins as child processes, the host
// in this process, on free ports, with nothing on disk; stop() leaves no process behind.

/** Every process below this one, with its command line. */
function descendants(pid = process.pid): { pid: number; args: string }[] {
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

afterAll(removeTempDirs);

it("starts the stand-ins as children and the host in-process, in memory, and stops every process", async () => {
  // Run alone, this test runs in Jest's own process, beside the stand-ins of global setup.
  const before = new Set(descendants().map(({ pid }) => pid));
  const dataDir = tempDir("stack-data-");
  const stack = await startStack(
    {
      FUNCTION_KEY: "stack-test-key",
      MASTER_KEY: "stack-test-master-key",
      COSMOS_DATABASE: `stack-${randomUUID().slice(0, 8)}`,
      SECRETS_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      LOCAL_DATA_DIR: dataDir,
    },
    {
      ports: "free",
      persistent: false,
      cosmos: "child",
      serviceBus: "child",
      host: "in-process",
      childOutput: "errors",
    },
  );
  let children: { pid: number; args: string }[] = [];
  let issuerPort: number | undefined;
  try {
    expect(stack.host?.baseUrl).toBe(stack.baseUrl);
    const health = await fetch(`${stack.baseUrl}/health`);
    expect(await health.json()).toEqual({ status: "ok", checks: { cosmos: "ok", storage: "ok" } });

    // The Service Bus stand-in answers on the connection string the stack hands out.
    const client = new ServiceBusClient(stack.serviceBusConnectionString());
    try {
      await client.createSender("stack-topic").sendMessages({ body: "hello" });
    } finally {
      await client.close();
    }
    expect(stack.serviceBusConnectionString("t")).toMatch(/;UseDevelopmentEmulator=true;EntityPath=t$/);

    // The local issuer (entra, the default) runs in this process, its key in memory, and the host trusts it.
    const { issuer } = stack;
    expect(issuer?.authority).toBe(stack.plan.issuer?.authority);
    expect(stack.host?.config).toMatchObject({ AUTH_MODE: "entra", AUTH_AUTHORITY: issuer?.authority });
    const discovery = await fetch(`${issuer?.authority}/.well-known/openid-configuration`);
    expect(await discovery.json()).toMatchObject({ issuer: issuer?.authority });
    expect(stack.plan.issuer?.keyFile).toBe(path.join(dataDir, "issuer-key.json"));
    issuerPort = issuer?.port;

    children = descendants().filter(({ pid }) => !before.has(pid));
    const commands = children.map(({ args }) => args).join("\n");
    expect(commands).toMatch(/azurite-main\.js/);
    expect(commands).toMatch(/cosmos-server-main\.js/);
    expect(commands).toMatch(/service-bus\/main\.js/);
    // Nothing on disk: Azurite keeps its data in memory (and the Cosmos server keeps no journal).
    expect(commands).toMatch(/--inMemoryPersistence/);
    expect(commands).not.toMatch(/--location/);
  } finally {
    const outcomes = await stack.stop();
    expect(outcomes.filter(({ clean }) => !clean)).toEqual([]);
    expect(outcomes.map(({ name }) => name)).toContain("OpenID issuer");
  }
  expect(issuerPort !== undefined && (await isPortFree(issuerPort))).toBe(true);
  // Nothing on disk, the issuer's key included.
  expect(readdirSync(dataDir)).toEqual([]);
  expect(children.filter(({ pid }) => isAlive(pid))).toEqual([]);
});
