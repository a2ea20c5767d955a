import * as net from "node:net";

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

export class PortInUseError extends Error {
  constructor(
    readonly port: number,
    readonly variable: string,
  ) {
    super(`Port ${port} is already in use; set ${variable} to another port.`);
    this.name = "PortInUseError";
  }
}

export async function assertPortFree(port: number, variable: string): Promise<void> {
  if (!(await isPortFree(port))) throw new PortInUseError(port, variable);
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
