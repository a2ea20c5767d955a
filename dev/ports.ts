import * as net from "node:net";
import { StartupError } from "./startup-error";

/** A port that was free a moment ago, for stand-ins that must be told their port up front. */
export function freePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, host, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export function isPortFree(port: number, host = "127.0.0.1"): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

type BusyPort = { port: number; variable: string };

/** Every busy port in one message: freeing one at a time and retrying is slow. */
export class PortInUseError extends StartupError {
  constructor(busy: BusyPort[]) {
    super(
      busy.length === 1
        ? `Port ${busy[0]?.port} is already in use; set ${busy[0]?.variable} to another port.`
        : `Ports already in use: ${busy.map(({ port, variable }) => `${port} (${variable})`).join(", ")}; set ${busy.map(({ variable }) => variable).join(", ")} to other ports.`,
    );
  }
}

export async function assertPortsFree(ports: readonly BusyPort[]): Promise<void> {
  const free = await Promise.all(ports.map(({ port }) => isPortFree(port)));
  const busy = ports.filter((_, index) => !free[index]);
  if (busy.length > 0) throw new PortInUseError(busy);
}

/** Resolves once something accepts TCP connections on the port, or rejects after the timeout. */
export async function waitForPort(port: number, timeoutMs = 30_000, host = "127.0.0.1"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, host);
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`nothing listened on ${host}:${port} within ${timeoutMs} ms`);
}
