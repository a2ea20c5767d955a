import { type ChildProcess, fork } from "node:child_process";
import * as path from "node:path";

/** A delay relay in a child process: its port, its connection count, and how to stop it. */
export interface RelayProcess {
  port: number;
  roundTripMs: number;
  connections(): Promise<number>;
  close(): Promise<void>;
}

/** Starts bench/delay-relay-main.js in front of `upstreamPort` and waits for its port. */
export async function spawnDelayRelay(upstreamPort: number, roundTripMs: number): Promise<RelayProcess> {
  const child: ChildProcess = fork(
    path.join(__dirname, "delay-relay-main.js"),
    [String(upstreamPort), String(roundTripMs)],
    { stdio: ["ignore", "inherit", "inherit", "ipc"] },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    child.once("message", (message: { port?: number }) =>
      message.port === undefined ? reject(new Error("the delay relay sent no port")) : resolve(message.port),
    );
    child.once("exit", (code) => reject(new Error(`the delay relay exited with ${code}`)));
  });
  return {
    port,
    roundTripMs,
    connections: () =>
      new Promise((resolve) => {
        child.once("message", (message: { connections: number }) => resolve(message.connections));
        child.send("connections");
      }),
    close: async () => {
      child.disconnect();
      await exited;
    },
  };
}

/** The port of a connection string's sb://host:port/ endpoint. */
export function serviceBusPort(connectionString: string): number {
  const port = /^Endpoint=sb:\/\/[^:/;]+:(\d+)\//.exec(connectionString)?.[1];
  if (port === undefined) throw new Error("the connection string names no sb://host:port/ endpoint");
  return Number(port);
}

/** `connectionString` with its endpoint's port replaced by the relay's (sb://127.0.0.1:<port>/). */
export function throughRelay(connectionString: string, relay: Pick<RelayProcess, "port">): string {
  const replaced = connectionString.replace(
    /^Endpoint=sb:\/\/([^:/;]+):\d+\//,
    `Endpoint=sb://$1:${relay.port}/`,
  );
  if (replaced === connectionString)
    throw new Error("the connection string names no sb://host:port/ endpoint");
  return replaced;
}

/** The stack as its Service Bus clients see it from behind the relay: every connection string goes through it. */
export function behindRelay<T extends { serviceBus: { connectionString(entityPath?: string): string } }>(
  stack: T,
  relay: Pick<RelayProcess, "port">,
): T {
  const direct = stack.serviceBus;
  return {
    ...stack,
    serviceBus: {
      connectionString: (entityPath?: string) => throughRelay(direct.connectionString(entityPath), relay),
    },
  };
}
