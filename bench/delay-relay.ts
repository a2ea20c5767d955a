import * as net from "node:net";

/**
 * A TCP relay that adds a network's round trip between its clients and one upstream port: every
 * chunk is held for half the round-trip time, in order, in each direction, so a request and its
 * answer cost one full round trip more than on loopback. Bandwidth is not limited; only latency is
 * added, as between a Functions instance and its Service Bus namespace in one region.
 */
export interface DelayRelay {
  port: number;
  /** Connections accepted so far (a check that clients really go through the relay). */
  connections(): number;
  close(): Promise<void>;
}

/** Queues chunks from `from` and writes each to `to` once it is `holdMs` old, keeping their order. */
function delayedPipe(from: net.Socket, to: net.Socket, holdMs: number): void {
  const queue: { due: number; chunk: Buffer }[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    timer = undefined;
    const now = performance.now();
    while (queue.length > 0 && (queue[0] as { due: number }).due <= now) {
      const { chunk } = queue.shift() as { chunk: Buffer };
      // Back-pressure: stop reading while the other side's buffer is full.
      if (!to.destroyed && !to.write(chunk) && !from.isPaused()) {
        from.pause();
        to.once("drain", () => from.resume());
      }
    }
    if (queue.length > 0) schedule();
    else if (from.readableEnded && !to.destroyed) to.end();
  };
  const schedule = () => {
    if (timer !== undefined || queue.length === 0) return;
    const wait = Math.max(0, (queue[0] as { due: number }).due - performance.now());
    timer = setTimeout(flush, wait);
  };
  from.on("data", (chunk: Buffer) => {
    queue.push({ due: performance.now() + holdMs, chunk });
    schedule();
  });
  from.on("end", () => {
    if (queue.length === 0 && !to.destroyed) to.end();
  });
}

export function startDelayRelay(
  upstreamPort: number,
  roundTripMs: number,
  host = "127.0.0.1",
): Promise<DelayRelay> {
  const holdMs = roundTripMs / 2;
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  // Half-open sockets: a peer's FIN is passed on only after the chunks held before it (an AMQP
  // close frame followed at once by FIN must still arrive).
  const server = net.createServer({ allowHalfOpen: true }, (client) => {
    accepted++;
    const upstream = net.connect({ port: upstreamPort, host, allowHalfOpen: true });
    for (const socket of [client, upstream]) {
      socket.setNoDelay(true);
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      // A reset on either side ends the pair; errors are the peers' business, not the relay's.
      socket.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    delayedPipe(client, upstream, holdMs);
    delayedPipe(upstream, client, holdMs);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => {
      resolve({
        port: (server.address() as net.AddressInfo).port,
        connections: () => accepted,
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
