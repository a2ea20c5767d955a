import { type ChildProcess, spawn } from "node:child_process";
import { StartupError } from "./startup-error";

export interface ChildSpec {
  /** How messages name the child, e.g. "Cosmos DB server". */
  name: string;
  /** A Node script that calls reportReady() (dev/child-lifecycle.ts) once it serves. */
  script: string;
  env: NodeJS.ProcessEnv;
  readyTimeoutMs: number;
  /** How long the child may take to stop after SIGTERM before it is killed. */
  stopTimeoutMs: number;
  /** What of the child's output shows: all of it (the default), or its errors only (stderr). */
  output?: "all" | "errors";
}

export interface StopOutcome {
  name: string;
  /** False when the child failed while stopping or had to be killed. */
  clean: boolean;
  description: string;
}

interface Running {
  spec: ChildSpec;
  child: ChildProcess;
  exited: Promise<string>;
}

/** Each child leads its own process group: signalling the group reaches anything it started too. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // The group is empty: everything in it has exited already.
  }
}

function groupAlive(child: ChildProcess): boolean {
  try {
    if (child.pid === undefined) return false;
    process.kill(-child.pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits for every process of the child's group to end; kills what is left at the deadline. */
async function drainGroup(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (groupAlive(child)) {
    if (Date.now() > deadline) {
      signalGroup(child, "SIGKILL");
      return false;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

export function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal !== null ? `signal ${signal}` : `exit code ${code}`;
}

/**
 * Starts child processes and stops them again, last started first, each with a deadline after
 * which it is killed, so no child outlives the launcher. A child that exits on its own after it
 * was ready is reported to `onUnexpectedExit`.
 */
export class Supervisor {
  private readonly running: Running[] = [];
  private stopping = false;

  constructor(private readonly onUnexpectedExit: (name: string, how: string) => void) {}

  /** Resolves once the child reports ready; rejects if it exits or stays silent past the deadline. */
  start(spec: ChildSpec): Promise<void> {
    if (this.stopping) return Promise.reject(new StartupError(`Not starting ${spec.name}: shutting down.`));
    // Own process group: Ctrl+C in a terminal signals the whole foreground group, but the launcher
    // must stop its children itself, in order (the Cosmos server snapshots after the host is gone).
    // The IPC channel carries the ready message and lets a child notice the launcher vanished.
    const child = spawn(process.execPath, [spec.script], {
      env: spec.env,
      stdio: ["ignore", spec.output === "errors" ? "ignore" : "inherit", "inherit", "ipc"],
      detached: true,
    });
    let ready = false;
    const exited = new Promise<string>((resolve) => {
      child.once("exit", (code, signal) => resolve(describeExit(code, signal)));
      child.once("error", (error) => resolve(`failure to start: ${error.message}`));
    });
    this.running.push({ spec, child, exited });
    exited.then((how) => {
      if (ready && !this.stopping) this.onUnexpectedExit(spec.name, how);
    });
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new StartupError(`${spec.name} did not start within ${spec.readyTimeoutMs / 1000} s.`)),
        spec.readyTimeoutMs,
      );
      child.on("message", (message: unknown) => {
        if ((message as { ready?: unknown } | null)?.ready !== true) return;
        ready = true;
        clearTimeout(timer);
        resolve();
      });
      exited.then((how) => {
        clearTimeout(timer);
        if (!ready) reject(new StartupError(`${spec.name} stopped while starting (${how}).`));
      });
    });
  }

  /** Stops every child, last started first; safe to call more than once. */
  async stopAll(): Promise<StopOutcome[]> {
    this.stopping = true;
    const outcomes: StopOutcome[] = [];
    for (const running of [...this.running].reverse()) outcomes.push(await this.stop(running));
    this.running.length = 0;
    return outcomes;
  }

  /** Last resort when the launcher itself is exiting abruptly: no goodbyes, just no orphans. */
  killAll(): void {
    for (const { child } of this.running) {
      if (child.exitCode === null && child.signalCode === null) signalGroup(child, "SIGKILL");
    }
  }

  private async stop({ spec, child, exited }: Running): Promise<StopOutcome> {
    if (child.exitCode !== null || child.signalCode !== null) {
      // A child that died may have left its own children (Azurite's services) behind.
      signalGroup(child, "SIGTERM");
      await drainGroup(child, spec.stopTimeoutMs);
      return { name: spec.name, clean: false, description: `had already stopped (${await exited})` };
    }
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      signalGroup(child, "SIGKILL");
    }, spec.stopTimeoutMs);
    child.kill("SIGTERM");
    const how = await exited;
    clearTimeout(timer);
    await drainGroup(child, spec.stopTimeoutMs);
    if (killed) {
      return {
        name: spec.name,
        clean: false,
        description: `did not stop within ${spec.stopTimeoutMs / 1000} s and was killed`,
      };
    }
    return { name: spec.name, clean: how === "exit code 0", description: `stopped (${how})` };
  }
}
