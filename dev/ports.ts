import * as net from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { StartupError } from "./startup-error";

/** Listens on the port (0: any free one) and closes again: the port it got, or undefined when it is taken. */
function tryListen(port: number, host: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = net.createServer().once("error", () => resolve(undefined));
    server.listen(port, host, () => {
      const { port: got } = server.address() as net.AddressInfo;
      server.close(() => resolve(got));
    });
  });
}

/** A port that was free a moment ago, for stand-ins that must be told their port up front. */
export async function freePort(host = "127.0.0.1"): Promise<number> {
  const port = await tryListen(0, host);
  if (port === undefined) throw new Error(`no free port on ${host}`);
  return port;
}

/** A distinct free port for each variable, as the setting's text. */
export async function freePorts<V extends string>(variables: readonly V[]): Promise<Record<V, string>> {
  const ports = new Set<number>();
  while (ports.size < variables.length) ports.add(await freePort());
  return Object.fromEntries(
    variables.map((variable, index) => [variable, String([...ports][index])]),
  ) as Record<V, string>;
}

export async function isPortFree(port: number, host = "127.0.0.1"): Promise<boolean> {
  return (await tryListen(port, host)) !== undefined;
}

/** Every busy port in one message: freeing one at a time and retrying is slow. */
export async function assertPortsFree(ports: readonly { port: number; variable: string }[]): Promise<void> {
  const free = await Promise.all(ports.map(({ port }) => isPortFree(port)));
  const busy = ports.filter((_, index) => !free[index]);
  if (busy.length === 1)
    throw new StartupError(
      `Port ${busy[0]?.port} is already in use; set ${busy[0]?.variable} to another port.`,
    );
  if (busy.length > 1)
    throw new StartupError(
      `Ports already in use: ${busy.map(({ port, variable }) => `${port} (${variable})`).join(", ")}; set ${busy.map(({ variable }) => variable).join(", ")} to other ports.`,
    );
}

/** Resolves once something accepts TCP connections on the port, or rejects after the timeout. */
export async function waitForPort(port: number, timeoutMs = 30_000, host = "127.0.0.1"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, host, () => resolve(true)).once("error", () => resolve(false));
      socket.once("connect", () => socket.destroy());
    });
    if (open) return;
    await sleep(100);
  }
  throw new Error(`nothing listened on ${host}:${port} within ${timeoutMs} ms`);
}
