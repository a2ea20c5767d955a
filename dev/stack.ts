import * as path from "node:path";
import { type AppConfig, loadConfig } from "../src/config";
import { createServices, disposeServices, type Services } from "../src/services";
import { ensureContainers } from "../src/store/containers";
import { queueFunctions } from "../src/triggers/queue-functions";
import { routeDefinitions } from "../src/triggers/routes";
import type { IssuerPlan } from "./auth-plan";
import { ensureDatabase } from "./ensure-database";
import { type HostSettings, readHostSettings } from "./host-json";
import type { HostLogger } from "./host-logger";
import type { LocalKeys } from "./key-check";
import { createLocalHost } from "./local-host";
import { projectRoot } from "./local-paths";
import type { Settings } from "./local-settings";
import { assertPortsFree, freePort, PortInUseError } from "./ports";
import { DEFAULT_PORTS, type PortVariable, planStack, type StackPlan } from "./stack-plan";
import type { ManagedIdentityEndpoint } from "./stand-ins/managed-identity/server";
import type { OpenIdIssuer } from "./stand-ins/openid-issuer";
import { StartupError } from "./startup-error";
import { type ChildSpec, type StopOutcome, Supervisor } from "./supervisor";
import { waitForHealthy } from "./wait-for-health";

/**
 * The one way to run the local stack: a stand-in for every backing service the settings do not
 * configure (Azurite, the Cosmos DB server, the Service Bus stand-in) and the local Functions host.
 * `npm start` runs each as a supervised child process; the tests run the Cosmos server in the
 * process that starts it and a host in each test file; the benchmarks and the load run keep the
 * host in-process (to measure it) and the stand-ins in children (as real services are elsewhere).
 */

/** Queue-trigger settings of an in-process host: host.json's, with these changed. */
export type QueueOverrides = Partial<HostSettings["queues"]> & {
  /** How long a message stays locked while its handler runs; the local host's default unless set. */
  lockSeconds?: number;
};

export interface HostOptions {
  /** The settings the service reads (src/config.ts), as the environment carries them. */
  settings: NodeJS.ProcessEnv;
  /** 0 picks a free port. */
  port: number;
  keys: LocalKeys;
  /** Poll the queues as host.json says, changed by these; `false`: serve HTTP only. */
  queues: QueueOverrides | false;
  /** Create the database and its containers first (default true). */
  createContainers?: boolean;
  log: HostLogger;
}

export interface RunningHost {
  baseUrl: string;
  config: AppConfig;
  services: Services;
  /** Stops the host (its queue triggers first) and closes its clients. */
  close(): Promise<void>;
}

/** The local Functions host in this process: the route table and queue functions, as host.json sets them. */
export async function startHost(options: HostOptions): Promise<RunningHost> {
  const config = loadConfig(options.settings);
  const services = createServices(config);
  try {
    if (options.createContainers !== false) await ensureContainers(services.cosmos, config.COSMOS_DATABASE);
    const hostSettings = readHostSettings();
    const queues = options.queues;
    const host = createLocalHost({
      routes: routeDefinitions(),
      services,
      keys: options.keys,
      routePrefix: hostSettings.routePrefix,
      ...(queues !== false && {
        queues: {
          functions: queueFunctions,
          settings: { ...hostSettings.queues, ...withoutLock(queues) },
          ...(queues.lockSeconds !== undefined && { lockSeconds: queues.lockSeconds }),
        },
      }),
      log: options.log,
    });
    const baseUrl = await host.listen(options.port).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE") {
        throw new StartupError(`Port ${options.port} is already in use; set PORT to another port.`);
      }
      throw error;
    });
    return {
      baseUrl,
      config,
      services,
      async close() {
        await host.close();
        await disposeServices(services);
      },
    };
  } catch (error) {
    await disposeServices(services);
    throw error;
  }
}

function withoutLock({ lockSeconds: _lock, ...settings }: QueueOverrides): Partial<HostSettings["queues"]> {
  return settings;
}

export interface StackOptions {
  /**
   * "planned": the ports the settings name, else the defaults, each checked free before anything
   * starts (`npm start`). "free": a free port for every port setting not given (tests, bench).
   */
  ports: "planned" | "free";
  /**
   * Keep Azurite's data and Cosmos DB snapshots in LOCAL_DATA_DIR (`npm start`); otherwise both
   * stay in memory (LOCAL_DATA_IN_MEMORY=true for the children): nothing is written to disk, so
   * nothing is left behind, even when this process is killed.
   */
  persistent: boolean;
  cosmos: "child" | "in-process";
  serviceBus: "child" | "none";
  host: "child" | "in-process" | "none";
  /** What the in-process host logs; nothing unless given (log lines would skew timings). */
  hostLog?: HostLogger;
  /** What of the children's output shows: all (`npm start`) or their errors only. */
  childOutput: "all" | "errors";
  /** A child that exits on its own once started; by default a line on stderr. */
  onUnexpectedExit?: (name: string, how: string) => void;
}

export interface RunningStack {
  plan: StackPlan;
  /** The host's base URL (also when it runs as a child). */
  baseUrl: string;
  cosmosEndpoint: string;
  storageConnectionString: string;
  /** Azurite's blob endpoint (path-style, account included), when Azurite runs. */
  blobEndpoint: string | undefined;
  /** A connection string for the Service Bus stand-in, with `EntityPath` when given. */
  serviceBusConnectionString(entityPath?: string): string;
  /** The in-process host, when the host runs in this process. */
  host: RunningHost | undefined;
  /** The local OpenID issuer (in this process), when the plan has one and a host runs. */
  issuer: OpenIdIssuer | undefined;
  /** The managed-identity stand-in (in this process), when a host or the Service Bus stand-in runs. */
  identity: ManagedIdentityEndpoint | undefined;
  /** Azurite's HTTPS blob endpoint with OAuth (`https://localhost:{port}/devstoreaccount1`), when Azurite runs. */
  blobTlsEndpoint: string | undefined;
}

const READY_TIMEOUT_MS = 60_000;
const PORT_VARIABLES = Object.keys(DEFAULT_PORTS) as PortVariable[];

/** The built dev/ folder: children run compiled, also when this module runs from source (tests). */
function builtDevDir(): string {
  return __filename.endsWith(".js") ? __dirname : path.join(projectRoot(), "dist", "dev");
}

async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

/**
 * A local stack, started once and stopped once. stop() may come at any time, also while start()
 * is under way: what has started stops (host first), and start() then fails.
 */
export class LocalStack {
  private readonly supervisor: Supervisor;
  /** In-process parts, stopped after the children, last first. */
  private readonly closers: { name: string; close: () => Promise<void> | void }[] = [];
  private inProcessHost: RunningHost | undefined;
  private stopping: Promise<StopOutcome[]> | undefined;

  constructor(private readonly options: StackOptions) {
    this.supervisor = new Supervisor(
      options.onUnexpectedExit ?? ((name, how) => console.error(`${name} stopped unexpectedly (${how}).`)),
    );
  }

  async start(input: Settings): Promise<RunningStack> {
    const { options } = this;
    const settings: Settings = { ...input };
    if (!options.persistent) settings.LOCAL_DATA_IN_MEMORY = "true";
    if (options.ports === "free") {
      const unset = PORT_VARIABLES.filter((variable) => !settings[variable]);
      const ports = await distinctFreePorts(unset.length);
      for (const [index, variable] of unset.entries()) settings[variable] = String(ports[index]);
    }
    const plan = planStack(settings);
    // Everything is known before anything starts: a bad setting or a busy port costs no start-up.
    const config = options.host === "none" ? undefined : loadConfig(plan.settings);
    if (options.ports === "planned")
      await assertPortsFree(plan.ports.filter(({ variable }) => this.listensOn(variable)));

    // Made (or checked) here once, so the children that serve TLS only read it.
    const tls = await localTls().loadOrCreateLocalTls();
    const { inheritedCaFile } = plan.identity;
    if (inheritedCaFile !== undefined) localTls().writeCaBundle(tls, inheritedCaFile);
    // Before Service Bus: its $cbs checks tokens against this stand-in's key set.
    const identity = this.identityRuns() ? await this.startIdentity(plan) : undefined;
    if (plan.azurite) await this.child("Azurite", "azurite-main.js", plan.settings, 10_000);
    if (plan.cosmos && options.cosmos === "child") {
      // The Cosmos server folds its journal into the snapshot on the way down: give it time.
      await this.child("Cosmos DB server", "cosmos-server-main.js", plan.settings, 30_000);
    } else if (plan.cosmos) {
      this.assertRunning();
      const server = await startCosmosServer()(plan.cosmos.port);
      await this.adopt(
        () => this.closers.push({ name: "Cosmos DB server", close: () => server.close() }),
        server,
      );
    }
    if (options.serviceBus === "child") {
      await this.child(
        "Service Bus stand-in",
        path.join("stand-ins", "service-bus", "main.js"),
        plan.settings,
        10_000,
      );
    }
    const issuer = plan.issuer && options.host !== "none" ? await this.startIssuer(plan.issuer) : undefined;
    if (config) {
      this.assertRunning();
      await ensureDatabase(config);
    }
    if (options.host === "child") {
      await this.child("Functions host", "local-host-main.js", plan.settings, 10_000);
      await waitForHealthy(plan.host.url, READY_TIMEOUT_MS);
    } else if (options.host === "in-process") {
      this.assertRunning();
      const host = await startHost({
        settings: plan.settings,
        port: plan.host.port,
        keys: { functionKey: plan.host.functionKey, masterKey: plan.host.masterKey },
        queues: {},
        createContainers: false,
        log: options.hostLog ?? (() => undefined),
      });
      await this.adopt(() => {
        this.inProcessHost = host;
      }, host);
    }
    this.assertRunning();
    return {
      plan,
      baseUrl: plan.host.url,
      cosmosEndpoint: plan.settings.COSMOS_ENDPOINT as string,
      storageConnectionString: plan.settings.AzureWebJobsStorage as string,
      blobEndpoint: plan.azurite?.blobEndpoint,
      serviceBusConnectionString: (entityPath) =>
        plan.serviceBus.connectionString.replace(
          /;EntityPath=[^;]*$/,
          entityPath === undefined ? "" : `;EntityPath=${entityPath}`,
        ),
      host: this.inProcessHost,
      issuer,
      identity,
      blobTlsEndpoint: plan.azurite?.blobTlsEndpoint,
    };
  }

  /** Stops everything that started, the host first; safe to call more than once. */
  stop(): Promise<StopOutcome[]> {
    this.stopping ??= (async () => {
      const outcomes: StopOutcome[] = [];
      const host = this.inProcessHost;
      this.inProcessHost = undefined;
      if (host) outcomes.push(await closeOutcome("Functions host", () => host.close()));
      outcomes.push(...(await this.supervisor.stopAll()));
      for (const { name, close } of this.closers.splice(0).reverse()) {
        outcomes.push(await closeOutcome(name, close));
      }
      return outcomes;
    })();
    return this.stopping;
  }

  /** Last resort when this process is exiting abruptly: no child may outlive it. */
  killAll(): void {
    this.supervisor.killAll();
  }

  /** Whether this stack listens on the port a variable sets (some parts may not run at all). */
  private listensOn(variable: PortVariable): boolean {
    const { host, serviceBus } = this.options;
    if (variable === "PORT" || variable === "ISSUER_PORT") return host !== "none";
    if (variable === "IDENTITY_PORT") return this.identityRuns();
    return (variable !== "SERVICEBUS_PORT" && variable !== "SERVICEBUS_TLS_PORT") || serviceBus !== "none";
  }

  /** The managed-identity stand-in serves the host's credentials and Service Bus's key set. */
  private identityRuns(): boolean {
    return this.options.host !== "none" || this.options.serviceBus !== "none";
  }

  /** In this process, like the issuer; its key lives in the key file only when the stack keeps its data. */
  private async startIdentity(plan: StackPlan): Promise<ManagedIdentityEndpoint> {
    this.assertRunning();
    const identity = await startManagedIdentityEndpoint()({
      port: plan.identity.port,
      header: plan.identity.header,
      ...(this.options.persistent && { keyFile: plan.identity.keyFile }),
    }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE")
        throw new PortInUseError([{ port: plan.identity.port, variable: "IDENTITY_PORT" }]);
      throw error;
    });
    await this.adopt(
      () => this.closers.push({ name: "Managed identity stand-in", close: () => identity.close() }),
      identity,
    );
    return identity;
  }

  private assertRunning(): void {
    if (this.stopping) throw new StartupError("Not starting the local stack: shutting down.");
  }

  /**
   * The issuer runs in this process: it is small, holds nothing but its key, and stops with the
   * launcher. Its key lives in the key file only when the stack keeps its data.
   */
  private async startIssuer(plan: IssuerPlan): Promise<OpenIdIssuer> {
    this.assertRunning();
    const issuer = await startOpenIdIssuer()({
      port: plan.port,
      tenantId: plan.tenantId,
      ...(this.options.persistent && { keyFile: plan.keyFile }),
    }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE")
        throw new PortInUseError([{ port: plan.port, variable: "ISSUER_PORT" }]);
      throw error;
    });
    await this.adopt(() => this.closers.push({ name: "OpenID issuer", close: () => issuer.close() }), issuer);
    return issuer;
  }

  /** Keeps what just started for stop(); closes it again if stop() came while it was starting. */
  private async adopt(keep: () => void, started: { close(): Promise<void> }): Promise<void> {
    if (this.stopping) {
      await started.close();
      this.assertRunning();
    }
    keep();
  }

  private child(name: string, script: string, settings: Settings, stopTimeoutMs: number): Promise<void> {
    const spec: ChildSpec = {
      name,
      script: path.join(builtDevDir(), script),
      env: { ...process.env, ...settings },
      readyTimeoutMs: READY_TIMEOUT_MS,
      stopTimeoutMs,
      output: this.options.childOutput,
    };
    return this.supervisor.start(spec);
  }
}

async function closeOutcome(name: string, close: () => Promise<void> | void): Promise<StopOutcome> {
  try {
    await close();
    return { name, clean: true, description: "stopped" };
  } catch (error) {
    return { name, clean: false, description: `failed while stopping: ${(error as Error).message}` };
  }
}

/**
 * Starts a stack for a caller that owns no signal handling of its own (tests, bench, load): on a
 * failed start what did start is stopped again, and should this process exit without stop(), the
 * children are killed with it.
 */
export async function startStack(
  settings: Settings,
  options: StackOptions,
): Promise<RunningStack & { stop(): Promise<StopOutcome[]> }> {
  const stack = new LocalStack(options);
  const killOnExit = () => stack.killAll();
  process.on("exit", killOnExit);
  const stop = async () => {
    try {
      return await stack.stop();
    } finally {
      process.off("exit", killOnExit);
    }
  };
  try {
    return { ...(await stack.start(settings)), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

// The stand-ins load only when this process runs them: the local host's own process (local-host-main)
// imports this module for startHost and runs neither, and the issuer's token library alone takes
// tens of milliseconds to load, before the host can answer its first request.
function startCosmosServer(): typeof import("./stand-ins/cosmos-server").startCosmosServer {
  return (require("./stand-ins/cosmos-server") as typeof import("./stand-ins/cosmos-server"))
    .startCosmosServer;
}

function startOpenIdIssuer(): typeof import("./stand-ins/openid-issuer").startOpenIdIssuer {
  return (require("./stand-ins/openid-issuer") as typeof import("./stand-ins/openid-issuer"))
    .startOpenIdIssuer;
}

function startManagedIdentityEndpoint(): typeof import("./stand-ins/managed-identity/server").startManagedIdentityEndpoint {
  return (
    require("./stand-ins/managed-identity/server") as typeof import("./stand-ins/managed-identity/server")
  ).startManagedIdentityEndpoint;
}

function localTls(): typeof import("./local-tls") {
  return require("./local-tls") as typeof import("./local-tls");
}
