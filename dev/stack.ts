import { type ChildProcess, spawn } from "node:child_process";
import * as path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { type AppConfig, loadConfig } from "../src/config";
import { ensureContainers } from "../src/store/containers";
import { createCosmosClient } from "../src/store/cosmos-client";
import { describeExit } from "./child-lifecycle";
import type { HostLogger } from "./host-logger";
import { projectRoot } from "./local-paths";
import type { Settings } from "./local-settings";
import { extraCaCertsFile, loadOrCreateLocalTls } from "./local-tls";
import { assertPortsFree, freePorts } from "./ports";
import { DEFAULT_PORTS, type PortVariable, planStack } from "./stack-plan";
import { startManagedIdentityEndpoint } from "./stand-ins/managed-identity/server";
import { type OpenIdIssuer, startOpenIdIssuer } from "./stand-ins/openid-issuer";
import { StartupError } from "./startup-error";

/**
 * The one way to run the local stack (`npm start`, the tests, the bench, the load run): a stand-in
 * for every backing service the settings do not configure, and the local Functions host.
 */
export interface StackOptions {
  /**
   * `npm start`'s stack: the settings' ports or the defaults (checked free first), data kept in
   * LOCAL_DATA_DIR, every child's output shown. Otherwise a throw-away one: free ports for the
   * unset, in memory only (LOCAL_DATA_IN_MEMORY=true), only the children's errors shown.
   */
  persistent: boolean;
  /** The Functions host and what only it uses (Service Bus, managed identity, issuer); false: storage and Cosmos DB alone. */
  host: boolean;
  /** Where the host's log lines go (over IPC) instead of its output: the bench and the load run count them. */
  hostLog?: HostLogger;
  /** A child that exits on its own once started; by default a line on stderr. */
  onUnexpectedExit?: (name: string, how: string) => void;
}

export type RunningStack = Awaited<ReturnType<LocalStack["start"]>>;
/** clean: false when it failed while stopping or had to be killed. */
export type StopOutcome = { name: string; clean: boolean; description: string };
type Child = { name: string; process: ChildProcess; exited: Promise<string>; stopTimeoutMs: number };

const READY_TIMEOUT_MS = 60_000;
const PORT_VARIABLES = Object.keys(DEFAULT_PORTS) as PortVariable[];

/** Each child leads its own process group; signal 0 asks whether any of it is left. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals | 0): boolean {
  try {
    return child.pid !== undefined && process.kill(-child.pid, signal);
  } catch {
    return false; // the group is empty
  }
}

/** Creates the database and containers the service expects, in whichever Cosmos DB is configured. */
export async function ensureDatabase(config: AppConfig): Promise<void> {
  const client = createCosmosClient(config);
  try {
    await ensureContainers(client, config.COSMOS_DATABASE);
  } catch (error) {
    const reason = String((error as Error).message ?? error).split("\n")[0];
    throw new StartupError(
      `Could not create the database ${config.COSMOS_DATABASE} and its containers at ${config.COSMOS_ENDPOINT}: ${reason}`,
    );
  } finally {
    client.dispose();
  }
}

/** Polls GET /health until it answers 200: every dependency of the host answers too. */
async function waitForHealthy(baseUrl: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let last = "no answer";
  while (Date.now() < deadline) {
    const answer = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(10_000) }).then(
      async (response) => (response.status === 200 ? "" : `${response.status} ${await response.text()}`),
      (error: Error) => error.message,
    );
    if (answer === "") return;
    last = answer;
    await sleep(250);
  }
  throw new StartupError(
    `The Functions host did not answer GET /health with 200 within ${READY_TIMEOUT_MS / 1000} s (last answer: ${last}).`,
  );
}

/**
 * A local stack, started once and stopped once. stop() may come at any time, also during start():
 * what has started stops (last started first, so the host before the stand-ins), and start() fails.
 * Should this process exit without stop(), the children are killed with it.
 */
export class LocalStack {
  private readonly children: Child[] = [];
  /** In-process parts, stopped after the children, last first. */
  private readonly closers: { name: string; close: () => Promise<void> }[] = [];
  private stopping: Promise<StopOutcome[]> | undefined;
  private readonly killAll = () => {
    for (const { process: child } of this.children) {
      if (child.exitCode === null && child.signalCode === null) signalGroup(child, "SIGKILL");
    }
  };

  constructor(private readonly options: StackOptions) {}

  async start(input: Settings) {
    const { persistent, host, hostLog } = this.options;
    process.on("exit", this.killAll);
    const settings: Settings = { ...input };
    if (!persistent) {
      settings.LOCAL_DATA_IN_MEMORY = "true";
      Object.assign(settings, await freePorts(PORT_VARIABLES.filter((variable) => !settings[variable])));
    }
    const plan = planStack(settings);
    // Everything is known before anything starts: a bad setting or a busy port costs no start-up.
    const config = host ? loadConfig(plan.settings) : undefined;
    if (persistent) {
      await assertPortsFree(plan.ports.filter(({ variable }) => host || /^(AZURITE|COSMOS)_/.test(variable)));
    }

    // Made (or checked) once here, so the children that serve TLS only read it.
    const tls = await loadOrCreateLocalTls();
    plan.settings.NODE_EXTRA_CA_CERTS = extraCaCertsFile(tls, plan.settings.NODE_EXTRA_CA_CERTS);
    // Before Service Bus: its $cbs checks tokens against this stand-in's key set.
    if (host) {
      const { port, header, keyFile } = plan.identity;
      await this.inProcess("Managed identity stand-in", () =>
        startManagedIdentityEndpoint({ port, header, ...(persistent && { keyFile }) }),
      );
    }
    if (plan.azurite) await this.child("Azurite", "azurite-main.js", plan.settings, 10_000);
    if (plan.cosmos) await this.child("Cosmos DB server", "cosmos-server-main.js", plan.settings, 10_000);
    let issuer: OpenIdIssuer | undefined;
    if (config) {
      const script = path.join("stand-ins", "service-bus", "main.js");
      await this.child("Service Bus stand-in", script, plan.settings, 10_000);
      if (plan.issuer) {
        const { port, keyFile } = plan.issuer;
        issuer = await this.inProcess("OpenID issuer", () =>
          startOpenIdIssuer({ port, ...(persistent && { keyFile }) }),
        );
      }
      this.assertRunning();
      await ensureDatabase(config);
      const hostSettings = hostLog ? { ...plan.settings, LOCAL_HOST_LOG: "ipc" } : plan.settings;
      // Its queue triggers wait up to 30 s for running handlers on the way down.
      await this.child("Functions host", "local-host-main.js", hostSettings, 35_000, (message) => {
        const line = (message as { log?: { level: never; functionName: string; message: string } }).log;
        if (line && hostLog) hostLog(line.level, line.functionName, line.message);
      });
      await waitForHealthy(plan.host.url);
    }
    this.assertRunning();
    return {
      plan,
      baseUrl: plan.host.url,
      /** The Service Bus stand-in's connection string, with `EntityPath` when given. */
      serviceBusConnectionString: (entityPath?: string) =>
        plan.serviceBus.connectionString.replace(
          /;EntityPath=[^;]*$/,
          entityPath === undefined ? "" : `;EntityPath=${entityPath}`,
        ),
      issuer,
    };
  }

  /** Stops everything that started, last started first; safe to call more than once. */
  stop(): Promise<StopOutcome[]> {
    this.stopping ??= (async () => {
      const outcomes: StopOutcome[] = [];
      // Kept listed until all have stopped: killAll() is the last resort meanwhile.
      for (const child of [...this.children].reverse()) outcomes.push(await stopChild(child));
      this.children.length = 0;
      process.off("exit", this.killAll);
      for (const { name, close } of this.closers.splice(0).reverse()) {
        const outcome = await close().then(
          () => ({ name, clean: true, description: "stopped" }),
          (error: Error) => ({ name, clean: false, description: `failed while stopping: ${error.message}` }),
        );
        outcomes.push(outcome);
      }
      return outcomes;
    })();
    return this.stopping;
  }

  private assertRunning(): void {
    if (this.stopping) throw new StartupError("Not starting the local stack: shutting down.");
  }

  /** A part in this process (small, nothing on disk but its key); closed again if stop() came meanwhile. */
  private async inProcess<T extends { close(): Promise<void> }>(
    name: string,
    start: () => Promise<T>,
  ): Promise<T> {
    this.assertRunning();
    const started = await start();
    if (this.stopping) {
      await started.close();
      this.assertRunning();
    }
    this.closers.push({ name, close: () => started.close() });
    return started;
  }

  /** Resolves once the child reports ready (dev/child-lifecycle.ts); rejects if it exits or stays silent. */
  private child(
    name: string,
    script: string,
    settings: Settings,
    stopTimeoutMs: number,
    onMessage?: (message: unknown) => void,
  ): Promise<void> {
    this.assertRunning();
    // Children run compiled, also when this module runs from source (tests).
    const devDir = __filename.endsWith(".js") ? __dirname : path.join(projectRoot(), "dist", "dev");
    // Own process group: Ctrl+C in a terminal signals the whole foreground group, but the launcher
    // stops its children itself, in order. The IPC channel carries "ready", and tells a child the
    // launcher is gone.
    const child = spawn(process.execPath, [path.join(devDir, script)], {
      env: { ...process.env, ...settings },
      stdio: ["ignore", this.options.persistent ? "inherit" : "ignore", "inherit", "ipc"],
      detached: true,
    });
    const exited = new Promise<string>((resolve) => {
      child.once("exit", (code, signal) => resolve(describeExit(code, signal)));
      child.once("error", (error) => resolve(`failure to start: ${error.message}`));
    });
    this.children.push({ name, process: child, exited, stopTimeoutMs });
    const onExit =
      this.options.onUnexpectedExit ?? ((n, how) => console.error(`${n} stopped unexpectedly (${how}).`));
    return new Promise<void>((resolve, reject) => {
      let ready = false;
      const timer = setTimeout(
        () => reject(new StartupError(`${name} did not start within ${READY_TIMEOUT_MS / 1000} s.`)),
        READY_TIMEOUT_MS,
      );
      child.on("message", (message: { ready?: unknown } | null) => {
        if (message?.ready !== true) return onMessage?.(message);
        ready = true;
        clearTimeout(timer);
        resolve();
      });
      void exited.then((how) => {
        clearTimeout(timer);
        if (!ready) reject(new StartupError(`${name} stopped while starting (${how}).`));
        else if (!this.stopping) onExit(name, how);
      });
    });
  }
}

/** SIGTERM, then a wait for the child's whole group (what it started too); SIGKILL at the deadline. */
async function stopChild({ name, process: child, exited, stopTimeoutMs }: Child): Promise<StopOutcome> {
  const dead = child.exitCode !== null || child.signalCode !== null;
  // A child that died may have left its own children (Azurite's services) behind.
  if (dead) signalGroup(child, "SIGTERM");
  else child.kill("SIGTERM");
  const deadline = Date.now() + stopTimeoutMs;
  while (signalGroup(child, 0) && Date.now() <= deadline) await sleep(50);
  const killed = signalGroup(child, "SIGKILL");
  const how = await exited;
  if (dead) return { name, clean: false, description: `had already stopped (${how})` };
  if (killed)
    return {
      name,
      clean: false,
      description: `did not stop within ${stopTimeoutMs / 1000} s and was killed`,
    };
  return { name, clean: how === "exit code 0", description: `stopped (${how})` };
}

/** A stack for a caller without signal handling of its own (tests, bench, load): a failed start stops what did start. */
export async function startStack(
  settings: Settings,
  options: StackOptions,
): Promise<RunningStack & { stop(): Promise<StopOutcome[]> }> {
  const stack = new LocalStack(options);
  try {
    return { ...(await stack.start(settings)), stop: () => stack.stop() };
  } catch (error) {
    await stack.stop();
    throw error;
  }
}
