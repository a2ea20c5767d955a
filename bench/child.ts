import { spawn } from "node:child_process";

export interface BenchChild {
  close(): Promise<void>;
}

/**
 * A built script of this project as a child process, resolved once it reports ready over IPC
 * (dev/child-lifecycle's reportReady). Its stderr is inherited so a failure shows.
 */
export async function startChild(script: string, env: Record<string, string>): Promise<BenchChild> {
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  await new Promise<void>((resolve, reject) => {
    child.once("message", () => resolve());
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  // Should the bench itself die, the IPC channel closes and stopOnSignal stops the child.
  return {
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
