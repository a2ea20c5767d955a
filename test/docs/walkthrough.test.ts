import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
} from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { freePort } from "../../dev/ports";
import { DEFAULT_PORTS } from "../../dev/stack-plan";
import { codeBlocks, ROOT, readPage } from "./doc-blocks";

// The walkthrough (docs/walkthrough.md, where the README sends a newcomer), run as a newcomer runs
// it: in a fresh copy of the repository, the stack started as the page says, with every port
// moved off its default as the page says one moves them, then every command between the
// walkthrough markers, in order, in one bash session with `set -e`. That second shell has only
// what the page tells a reader to source: nothing about the ports. Each command must exit 0, print
// what the page promises (and every ```text block of the walkthrough, as shown), and name the
// moved ports in its hints; once the stack stops, the helper commands must refuse, saying to run
// `npm start`.

jest.setTimeout(420_000);

const PAGE = "docs/walkthrough.md";
const page = readPage(PAGE);

/** The port variables the page's settings name (`Local runs only: `PORT`, …`). */
function pagePortVariables(): string[] {
  const local = /^Local runs only:([\s\S]*?)\n\n/m.exec(page)?.[1] ?? "";
  return [...local.matchAll(/`([A-Z_]*PORT)`/g)].map((match) => match[1] as string);
}

const PORT_VARIABLES = pagePortVariables();

/** The blocks of one language between <!-- walkthrough:start --> and <!-- walkthrough:end -->. */
function walkthroughBlocks(language: string): string[] {
  const start = page.indexOf("<!-- walkthrough:start -->");
  const end = page.indexOf("<!-- walkthrough:end -->");
  if (start === -1 || end < start)
    throw new Error(`${PAGE} has no walkthrough:start / walkthrough:end markers`);
  return codeBlocks(PAGE, page.slice(start, end))
    .filter((block) => block.language === language)
    .map((block) => block.code);
}

/** The commands: the ```sh blocks. */
const walkthroughCommands = () => walkthroughBlocks("sh");

/**
 * What the page shows a command printing: a ```text block is consecutive whole lines of the
 * output, where `…` stands for any text within its line (a trace id, say).
 */
function shownOutput(block: string): RegExp {
  const lines = block.split("\n").map((line) =>
    line
      .split("…")
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*"),
  );
  return new RegExp(`^${lines.join("\n")}$`, "m");
}

/** The settings of the page's start command for the walkthrough, `NAME=value … npm start`. */
function startSettings(): Record<string, string> {
  const before = page.slice(0, page.indexOf("<!-- walkthrough:start -->"));
  const command = before
    .split("\n")
    .reverse()
    .find((line) => /^(?:[A-Z_]+=\S+\s+)+npm start$/.test(line.trim()));
  if (command === undefined)
    throw new Error(`${PAGE} shows no \`NAME=value npm start\` before the walkthrough`);
  return Object.fromEntries(
    [...command.matchAll(/([A-Z_]+)=(\S+)/g)].map((match) => [match[1] as string, match[2] as string]),
  );
}

/** The test's environment without anything that would point the stack or the commands elsewhere. */
function cleanEnvironment(): NodeJS.ProcessEnv {
  const local = [
    "PORT",
    "LOCAL_DATA_DIR",
    "LOCAL_SETTINGS_FILE",
    "FUNCTION_KEY",
    "MASTER_KEY",
    "BASE_URL",
    "EXAMPLE_TOPIC",
    "SERVICEBUS_CONNECTION",
    "UNREACHABLE_CONNECTION",
    "DEAD_LETTER_URL",
    "SERVICEBUS_SUBSCRIPTIONS",
    "TOKEN",
    "DEVELOPER_OBJECT_ID",
    ...Object.keys(DEFAULT_PORTS),
  ];
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) =>
        !name.startsWith("STACK_") &&
        !name.startsWith("AzureWebJobsStorage") &&
        !name.startsWith("COSMOS_") &&
        !name.startsWith("SECRETS_ENCRYPTION_") &&
        !name.startsWith("DELIVERY_") &&
        !name.startsWith("AUTH_") &&
        !local.includes(name),
    ),
  );
}

/** The repository as a clone has it (tracked and not ignored files), sharing node_modules. */
function freshCopy(): string {
  const copy = mkdtempSync(path.join(os.tmpdir(), "walkthrough-clone-"));
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: ROOT,
    encoding: "utf8",
  })
    .split("\0")
    .filter((file) => file !== "" && existsSync(path.join(ROOT, file)));
  for (const file of files) {
    mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
    cpSync(path.join(ROOT, file), path.join(copy, file));
  }
  symlinkSync(path.join(ROOT, "node_modules"), path.join(copy, "node_modules"));
  // What `npm start` does before it starts the stack (its install step has nothing to do here).
  execFileSync("npm", ["run", "build:service"], { cwd: copy, stdio: "ignore" });
  return copy;
}

/** A free port for each variable, none of them a default one: the stack moved off every default. */
async function freePorts(): Promise<Record<string, string>> {
  const defaults = new Set<number>(Object.values(DEFAULT_PORTS));
  const ports = new Set<number>();
  while (ports.size < PORT_VARIABLES.length) {
    const port = await freePort();
    if (!defaults.has(port)) ports.add(port);
  }
  const values = [...ports];
  return Object.fromEntries(PORT_VARIABLES.map((variable, index) => [variable, String(values[index])]));
}

function collect(child: ChildProcess): () => string {
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  return () => output;
}

/** Runs a bash script in the copy with the given environment; its exit code and all its output. */
async function bash(
  script: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  const child = spawn("bash", ["-c", script], { cwd: copy, env, stdio: ["ignore", "pipe", "pipe"] });
  const output = collect(child);
  const code = await exited(child);
  return { code, output: output() };
}

/**
 * Once the process has exited and every process that inherited its output has let go of it too
 * (the stack's children do): its "close", not its "exit", so no stand-in outlives the test.
 */
function exited(child: ChildProcess): Promise<number | null> {
  const ended = child.exitCode !== null || child.signalCode !== null;
  const released = [child.stdout, child.stderr].every((stream) => stream === null || stream.closed);
  if (ended && released) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once("close", (code) => resolve(code)));
}

let copy: string;
let stack: ChildProcess | undefined;
let stackOutput: () => string = () => "";
let ports: Record<string, string>;

beforeAll(async () => {
  copy = freshCopy();
  ports = await freePorts();
  stack = spawn(process.execPath, [path.join("dist", "dev", "start.js")], {
    cwd: copy,
    env: { ...cleanEnvironment(), ...ports, ...startSettings() },
    stdio: ["ignore", "pipe", "pipe"],
  });
  stackOutput = collect(stack);
  const deadline = Date.now() + 120_000;
  while (!stackOutput().includes("Local stack is running")) {
    if (stack.exitCode !== null || Date.now() > deadline) {
      throw new Error(`the stack did not come up:\n${stackOutput()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}, 300_000);

afterAll(async () => {
  if (stack && stack.exitCode === null && stack.signalCode === null) {
    stack.kill("SIGTERM");
    const timer = setTimeout(() => stack?.kill("SIGKILL"), 60_000);
    await exited(stack);
    clearTimeout(timer);
  }
  if (copy) {
    // The link first, so that nothing below it is removed with the copy.
    unlinkSync(path.join(copy, "node_modules"));
    rmSync(copy, { recursive: true, force: true });
  }
}, 90_000);

it("moves every port the page names off its default, as the page says one does", () => {
  expect([...PORT_VARIABLES].sort()).toEqual(Object.keys(DEFAULT_PORTS).sort());
  expect(page).toMatch(/`(?:[A-Z_]*PORT=\d+ )+npm start`/);
  for (const variable of PORT_VARIABLES) {
    expect(ports[variable]).not.toBe(String(DEFAULT_PORTS[variable as keyof typeof DEFAULT_PORTS]));
  }
});

it("starts with the page's settings and writes the env file the commands source", () => {
  expect(startSettings()).toEqual({
    DELIVERY_MAX_ATTEMPTS: expect.any(String),
    DELIVERY_BACKOFF_BASE_SECONDS: expect.any(String),
    DELIVERY_BACKOFF_CAP_SECONDS: expect.any(String),
  });
  expect(stackOutput()).toContain("source .local/local.env");
  const file = readFileSync(path.join(copy, ".local", "local.env"), "utf8");
  for (const name of [
    "BASE_URL",
    "TOKEN",
    "EXAMPLE_TOPIC",
    "SERVICEBUS_CONNECTION",
    "UNREACHABLE_CONNECTION",
    "DEAD_LETTER_URL",
  ]) {
    expect(file).toMatch(new RegExp(`^export ${name}=`, "m"));
  }
  expect(file).toContain(`export BASE_URL=http://127.0.0.1:${ports.PORT}\n`);
});

it("runs every walkthrough command as written: a profile, an event received, a dead letter, a route, an assessment", async () => {
  const commands = walkthroughCommands();
  expect(commands.length).toBeGreaterThanOrEqual(5);
  // Markers between the blocks tell which one was running when something failed.
  const script = [
    "set -e",
    ...commands.flatMap((code, index) => [`echo '@@ block ${index + 1} @@'`, code]),
    "echo '@@ done @@'",
  ].join("\n");
  // A second terminal: nothing of the stack's ports or settings but what the page has it source.
  const { code, output: text } = await bash(script, cleanEnvironment());
  const shown = `${text}\n--- stack ---\n${stackOutput().slice(-4000)}`;
  expect({ code, output: code === 0 ? "" : shown }).toEqual({ code: 0, output: "" });
  expect(text).toContain("@@ done @@");

  // 1. The profile was created, read, changed and listed; credentials in content were refused.
  expect(text).toContain('"id":"warehouse-sso"');
  expect(text).toContain('\\"App_ID\\":\\"renamed\\"');
  expect(text).toMatch(/"code":"InvalidRequestContent".*Password/);
  // 2. The endpoint answered with its key masked, the event arrived, the undeliverable one became a blob.
  expect(text).toContain("SharedAccessKey=***");
  expect(text).not.toContain("SharedAccessKey=SAS_KEY_VALUE");
  expect(text).toContain('{"accepted":1}');
  expect(text).toContain("message evt-1");
  expect(text).toContain('"cloudEvents:type":"Twin.Update"');
  expect(text).toContain('{"temperature":21.5}');
  expect(text).toMatch(/^unreachable\/\d{4}\/\d{2}\/\d{2}\/\d{2}\/evt-2\.json$/m);
  expect(text).toMatch(/^ {2}reason +MaxDeliveryAttemptsExceeded$/m);
  expect(text).toContain('"id":"evt-2"');
  // 3. The route was made for the endpoint; of the two events only the hot one arrived, as the
  // page shows it, and the other was counted unrouted; then the route was deleted.
  expect(text).toContain(
    '/eventRoutes/hot-machines","name":"hot-machines","endpointName":"orders","filter":"$body.temperature > 30"',
  );
  const outputs = walkthroughBlocks("text");
  expect(outputs.length).toBeGreaterThanOrEqual(1);
  for (const block of outputs)
    expect({ block, shown: shownOutput(block).test(text) }).toEqual({ block, shown: true });
  expect(text).toContain("message evt-3");
  expect(text).not.toContain("message evt-4");
  expect(stackOutput()).toMatch(/twin events: delivered=0 .*unrouted=1/);
  const routes = await bash(
    'source .local/local.env\ncurl -sS --fail-with-body "$BASE_URL/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/twins-rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/factory-twins/eventRoutes" -H "Authorization: Bearer $TOKEN"',
    cleanEnvironment(),
  );
  expect(routes).toEqual({ code: 0, output: '{"value":[]}' });
  // 4. Seeded into the stack's own Cosmos DB server, with a hint at its own host; then looked up
  // with two api-versions, and its project's list.
  expect(text).toContain(`into https://127.0.0.1:${ports.COSMOS_PORT}/`);
  expect(text).toMatch(new RegExp(`^  curl 'http://127\\.0\\.0\\.1:${ports.PORT}/subscriptions/`, "m"));
  expect(text.match(/"name":"web-tier-aks"/g)?.length).toBeGreaterThanOrEqual(3);
  expect(text).toContain('"type":"Microsoft.Migrate/assessmentProjects/clusterAssessments"');
  // 5. Reader on twins-rg: assigned, reads there, refused a delete there and a read elsewhere.
  expect(text).toMatch(/"scope":"\/subscriptions\/0{8}-0{4}-0{4}-0{4}-0{12}\/resourceGroups\/twins-rg"/);
  expect(text).toContain('"roleDefinitionName":"Reader"');
  expect(text.match(/"code":"AuthorizationFailed"/g)?.length).toBe(2);
  expect(text).toMatch(/perform action 'Microsoft\.DigitalTwins\/digitalTwinsInstances\/endpoints\/delete'/);
  expect(text).toMatch(/over scope '[^']*\/resourceGroups\/other-rg\//);
  // No command named a default port: every hint is the moved stack's.
  for (const port of Object.values(DEFAULT_PORTS)) expect(text).not.toContain(`127.0.0.1:${port}/`);
});

it("once the stack stops, every helper command refuses and says to run npm start", async () => {
  expect(stack).toBeDefined();
  const running = stack as ChildProcess;
  running.kill("SIGTERM");
  await exited(running);
  const commands = [
    "npm run seed",
    "npm run receive -- --count 1 --timeout 5",
    "npm run dead-letters",
    "npm run -s token -- reader",
  ];
  const each = commands.map((command) => `${command}; echo "@@ $? @@"`).join("\n");
  // The file the stopped stack left names ports nothing answers on any more.
  const stale = await bash(`source .local/local.env\n${each}`, cleanEnvironment());
  expect(stale.output.match(/^@@ 1 @@$/gm)?.length).toBe(commands.length);
  expect(stale.output.match(/Start it with `npm start`/g)?.length).toBe(commands.length);
  expect(stale.output).toContain(`No local stack answers at http://127.0.0.1:${ports.PORT}`);
  expect(stale.output).toContain(`No local issuer answers at http://127.0.0.1:${ports.ISSUER_PORT}/`);
  // Without the file (a data folder no stack ever ran in).
  const none = await bash(each, { ...cleanEnvironment(), LOCAL_DATA_DIR: "never-started" });
  expect(none.output.match(/^@@ 1 @@$/gm)?.length).toBe(commands.length);
  expect(none.output.match(/Start it with `npm start`/g)?.length).toBe(commands.length - 1);
  // The token needs the issuer's key first, and says so.
  expect(none.output).toMatch(/No local issuer key at .*: run `npm start` first/);
  expect(none.output).toContain("No local stack is running: there is no never-started/local.env");
}, 120_000);
