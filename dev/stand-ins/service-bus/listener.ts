import * as net from "node:net";
import * as tls from "node:tls";
import type { Connection, ConnectionOptions, Container, ServerConnectionOptions } from "rhea";
import { abortConnection } from "./rhea-internals";

/** How long a client gets to answer our AMQP close before its socket is dropped. */
const CLOSE_GRACE_MS = 2_000;

/** A certificate and key (PEM) to serve AMQPS with. */
export interface TlsIdentity {
  cert: string;
  key: string;
}

/**
 * Accepts AMQP connections for `container` on 127.0.0.1, on plain TCP (with
 * `UseDevelopmentEmulator=true` the SDK connects without TLS to the connection string's port) or,
 * given a certificate, on TLS (AMQPS: what the SDK uses for every other endpoint, e.g. a namespace
 * and a token credential). Both listeners serve one container, so they share its broker. `close()`
 * closes every connection (politely first, then the socket) and stops listening.
 */
export function listenForAmqp(
  container: Container,
  options: ServerConnectionOptions,
  port: number,
  tlsIdentity?: TlsIdentity,
): Promise<{ port: number; close(): Promise<void> }> {
  const open = new Map<net.Socket, Connection>();
  const serve = (socket: net.Socket) => {
    // AMQP is chatty (flow, transfer, disposition): without this, Nagle's algorithm and delayed
    // ACKs hold small frames back ~40 ms each, and a credit-1 receiver crawls at ~25 messages/s.
    socket.setNoDelay(true);
    coalesceWrites(socket);
    // rhea types create_connection for outgoing connections only; accept() makes this one a server's.
    const connection = container.create_connection(options as ConnectionOptions);
    connection.accept(socket);
    open.set(socket, connection);
    socket.once("close", () => open.delete(socket));
  };
  const server = tlsIdentity
    ? tls.createServer({ cert: tlsIdentity.cert, key: tlsIdentity.key }).on("secureConnection", serve)
    : net.createServer(serve);
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve({ port: (server.address() as net.AddressInfo).port, close: () => closeAll(server, open) });
    });
  });
}

/**
 * rhea writes each frame as it makes it: one system call per message delivered. Corking the socket
 * for the rest of the tick sends a tick's frames in one write (Service Bus batches its frames too);
 * nothing waits longer than the current tick.
 */
function coalesceWrites(socket: net.Socket): void {
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
  let corked = false;
  socket.write = ((...args: unknown[]) => {
    if (!corked) {
      corked = true;
      socket.cork();
      process.nextTick(() => {
        corked = false;
        socket.uncork();
      });
    }
    return write(...args);
  }) as typeof socket.write;
}

async function closeAll(server: net.Server, open: Map<net.Socket, Connection>): Promise<void> {
  const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
  for (const connection of open.values()) connection.close();
  const sockets = [...open.keys()].filter((socket) => !socket.closed);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(sockets.map((socket) => new Promise((resolve) => socket.once("close", resolve)))),
    new Promise((resolve) => {
      timer = setTimeout(resolve, CLOSE_GRACE_MS);
    }),
  ]);
  clearTimeout(timer);
  for (const [socket, connection] of open) abortConnection(connection, socket);
  await stopped;
}
