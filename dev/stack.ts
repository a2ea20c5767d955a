import { type ChildProcess, spawn } from "node:child_process";
import * as path from "node:path";
import { loadConfig } from "../src/config";
import { describeExit } from "./child-lifecycle";
import { ensureDatabase } from "./ensure-database";
import type { HostLogger } from "./host-logger";
import { projectRoot } from "./local-paths";
import type { Settings } from "./local-settings";
import { assertPortsFree, freePort, PortInUseError } from "./ports";
import { DEFAULT_PORTS, type PortVariable, planStack } from "./stack-plan";
import type { OpenIdIssuer } from "./stand-ins/openid-issuer";
import { StartupError } from "./startup-error";

/**
 * The one way to run the local stack (`npm start`, the tests, the bench, the load run): a stand-in
 * for every backing service the settings do not configure, and the local Functions host.
 */
export interface StackOptions {
  /** "planned": the settings' ports or the defaults, checked free first; "free": free ports for the unset ones. */
  ports: "planned" | "free";
  /** Keep data in LOCAL_DATA_DIR; otherwise in memory only (LOCAL_DATA_IN_MEMORY=true), nothing left behind. */
  persistent: boolean;
  cosmos: "child" | "in-process";
  serviceBus: "child" | "none";
  host: "child" | "none";
  /** Where the host's log lines go (over IPC) instead of its output: the bench and the load run count them. */
  hostLog?: HostLogger;
  childOutput: "all" | "errors";
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

/** Polls GET /health until it answers 200: every dependency of the host answers too. */
async function waitForHealthy(baseUrl: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "no answer";
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(10_000) });
      if (response.status === 200) return;
      last = `${response.status} ${await response.text()}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new StartupError(
    `The Functions host did not answer GET /health with 200 within ${timeoutMs / 1000} s (last answer: ${last}).`,
  );
}

/**
 * A local stack, started once and stopped once. stop() may come at any time, also during start():
 * what has started stops (last started first, so the host before the stand-ins), and start() fails.
 */
export class LocalStack {
  private readonly children: Child[] = [];
  /** In-process parts, stopped after the children, last first. */
  private readonly closers: { name: string; close: () => Promise<void> }[] = [];
  private stopping: Promise<StopOutcome[]> | undefined;

  constructor(private readonly options: StackOptions) {}

  async start(input: Settings) {
    const { options } = this;
    const settings: Settings = { ...input };
    if (!options.persistent) settings.LOCAL_DATA_IN_MEMORY = "true";
    if (options.ports === "free") {
      const ports = new Set<number>();
      const unset = PORT_VARIABLES.filter((variable) => !settings[variable]);
      while (ports.size < unset.length) ports.add(await freePort());
      for (const [index, port] of [...ports].entries()) settings[unset[index] as string] = String(port);
    }
    const plan = planStack(settings);
    const { persistent } = options;
    const host = options.host === "child";
    const serviceBus = options.serviceBus === "child";
    // Everything is known before anything starts: a bad setting or a busy port costs no start-up.
    const config = host ? loadConfig(plan.settings) : undefined;
    if (options.ports === "planned") {
      const idle = new Set<PortVariable>();
      if (!host) idle.add("PORT").add("ISSUER_PORT");
      if (!serviceBus) idle.add("SERVICEBUS_PORT").add("SERVICEBUS_TLS_PORT");
      if (!host && !serviceBus) idle.add("IDENTITY_PORT");
      await assertPortsFree(plan.ports.filter(({ variable }) => !idle.has(variable)));
    }

    // Made (or checked) once here, so the children that serve TLS only read it.
    const localTls = require("./local-tls") as typeof import("./local-tls");
    const tls = await localTls.loadOrCreateLocalTls();
    if (plan.identity.inheritedCaFile !== undefined)
      localTls.writeCaBundle(tls, plan.identity.inheritedCaFile);
    // Before Service Bus: its $cbs checks tokens against this stand-in's key set.
    if (host || serviceBus) {
      const { startManagedIdentityEndpoint } =
        require("./stand-ins/managed-identity/server") as typeof import("./stand-ins/managed-identity/server");
      const { port, header, keyFile } = plan.identity;
      await this.inProcess("Managed identity stand-in", "IDENTITY_PORT", port, () =>
        startManagedIdentityEndpoint({ port, header, ...(persistent && { keyFile }) }),
      );
    }
    if (plan.azurite) await this.child("Azurite", "azurite-main.js", plan.settings, 10_000);
    if (plan.cosmos && options.cosmos === "child") {
      await this.child("Cosmos DB server", "cosmos-server-main.js", plan.settings, 10_000);
    } else if (plan.cosmos) {
      const { startCosmosServer } =
        require("./stand-ins/cosmos-server") as typeof import("./stand-ins/cosmos-server");
      const { port } = plan.cosmos;
      await this.inProcess("Cosmos DB server", "COSMOS_PORT", port, () => startCosmosServer(port));
    }
    if (serviceBus) {
      const script = path.join("stand-ins", "service-bus", "main.js");
      await this.child("Service Bus stand-in", script, plan.settings, 10_000);
    }
    let issuer: OpenIdIssuer | undefined;
    if (plan.issuer && host) {
      const { startOpenIdIssuer } =
        require("./stand-ins/openid-issuer") as typeof import("./stand-ins/openid-issuer");
      const { port, tenantId, keyFile } = plan.issuer;
      issuer = await this.inProcess("OpenID issuer", "ISSUER_PORT", port, () =>
        startOpenIdIssuer({ port, tenantId, ...(persistent && { keyFile }) }),
      );
    }
    if (config) {
      this.assertRunning();
      await ensureDatabase(config);
      const { hostLog } = options;
      const hostSettings = hostLog ? { ...plan.settings, LOCAL_HOST_LOG: "ipc" } : plan.settings;
      // Its queue triggers wait up to 30 s for running handlers on the way down.
      await this.child("Functions host", "local-host-main.js", hostSettings, 35_000, (message) => {
        const line = (message as { log?: { level: never; functionName: string; message: string } }).log;
        if (line && hostLog) hostLog(line.level, line.functionName, line.message);
      });
      await waitForHealthy(plan.host.url, READY_TIMEOUT_MS);
    }
    this.assertRunning();
    return {
      plan,
      baseUrl: plan.host.url,
      cosmosEndpoint: plan.settings.COSMOS_ENDPOINT as string,
      storageConnectionString: plan.settings.AzureWebJobsStorage as string,
      blobEndpoint: plan.azurite?.blobEndpoint,
      blobTlsEndpoint: plan.azurite?.blobTlsEndpoint,
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
      for (const { name, close } of this.closers.splice(0).reverse()) {
        const failure = await close().then(
          () => undefined,
          (error: Error) => error.message,
        );
        outcomes.push({
          name,
          clean: !failure,
          description: failure ? `failed while stopping: ${failure}` : "stopped",
        });
      }
      return outcomes;
    })();
    return this.stopping;
  }

  /** Last resort when this process is exiting abruptly: no goodbyes, just no orphans. */
  killAll(): void {
    for (const { process: child } of this.children) {
      if (child.exitCode === null && child.signalCode === null) signalGroup(child, "SIGKILL");
    }
  }

  private assertRunning(): void {
    if (this.stopping) throw new StartupError("Not starting the local stack: shutting down.");
  }

  /** A part in this process (small, nothing on disk but its key); closed again if stop() came meanwhile. */
  private async inProcess<T extends { close(): Promise<void> }>(
    name: string,
    variable: PortVariable,
    port: number,
    start: () => Promise<T>,
  ): Promise<T> {
    this.assertRunning();
    const started = await start().catch((error: NodeJS.ErrnoException) => {
      throw error.code === "EADDRINUSE" ? new PortInUseError([{ port, variable }]) : error;
    });
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
      stdio: ["ignore", this.options.childOutput === "errors" ? "ignore" : "inherit", "inherit", "ipc"],
      detached: true,
    });
    const exited = new Promise<string>((resolve) => {
      child.once("exit", (code, signal) => resolve(describeExit(code, signal)));
      child.once("error", (error) => resolve(`failure to start: ${error.message}`));
    });
    this.children.push({ name, process: child, exited, stopTimeoutMs });
    let ready = false;
    const onExit =
      this.options.onUnexpectedExit ?? ((n, how) => console.error(`${n} stopped unexpectedly (${how}).`));
    void exited.then((how) => ready && !this.stopping && onExit(name, how));
    return new Promise<void>((resolve, reject) => {
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
  let killed = false;
  while (!killed && signalGroup(child, 0)) {
    if (Date.now() > deadline) killed = signalGroup(child, "SIGKILL") || true;
    else await new Promise((resolve) => setTimeout(resolve, 50));
  }
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

/**
 * A stack for a caller without signal handling of its own (tests, bench, load): a failed start
 * stops what did start, and should this process exit without stop(), the children die with it.
 */
export async function startStack(
  settings: Settings,
  options: StackOptions,
): Promise<RunningStack & { stop(): Promise<StopOutcome[]> }> {
  const stack = new LocalStack(options);
  const killOnExit = () => stack.killAll();
  process.on("exit", killOnExit);
  const stop = () => stack.stop().finally(() => process.off("exit", killOnExit));
  try {
    return { ...(await stack.start(settings)), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
