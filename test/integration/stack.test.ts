import { execFileSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { readdirSync } from "node:fs";
import { ServiceBusClient } from "@azure/service-bus";
import { isPortFree } from "../../dev/ports";
import { startStack } from "../../dev/stack";
import { removeTempDirs, tempDir } from "../support/temp-dirs";

// startStack as the benchmarks and the load run use it: every part a child, on free ports, in
// memory; stop() leaves no process and nothing on disk behind.

/** Every process below this one, with its command line. */
function descendants(pid = process.pid): { pid: number; args: string }[] {
  const table = execFileSync("ps", ["-eo", "pid=,ppid=,args="], { encoding: "utf8" })
    .split("\n")
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((match) => match !== null)
    .map((match) => ({ pid: Number(match[1]), ppid: Number(match[2]), args: match[3] as string }));
  const below = (parent: number): { pid: number; args: string }[] =>
    table.filter((row) => row.ppid === parent).flatMap((row) => [row, ...below(row.pid)]);
  return below(pid);
}

afterAll(removeTempDirs);

it("starts the stand-ins and the host as children, in memory, and stops every process", async () => {
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
      host: "child",
      childOutput: "errors",
    },
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
    expect(await (await fetch(`${authority}/.well-known/openid-configuration`)).json()).toMatchObject({
      issuer: authority,
    });

    children = descendants().filter(({ pid }) => !before.has(pid));
    const commands = children.map(({ args }) => args).join("\n");
    for (const script of [
      /azurite-main\.js/,
      /cosmos-server-main\.js/,
      /service-bus\/main\.js/,
      /local-host-main\.js/,
    ]) {
      expect(commands).toMatch(script);
    }
    expect(commands).toMatch(/--inMemoryPersistence/);
  } finally {
    const outcomes = await stack.stop();
    expect(outcomes.filter(({ clean }) => !clean)).toEqual([]);
  }
  expect(await isPortFree(stack.issuer?.port as number)).toBe(true);
  expect(readdirSync(dataDir)).toEqual([]); // the issuer's key included
  expect(
    children.filter(({ pid }) => {
      try {
        return process.kill(pid, 0);
      } catch {
        return false;
      }
    }),
  ).toEqual([]);
});
