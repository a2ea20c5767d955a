import * as net from "node:net";

/**
 * A TCP relay in front of a stand-in that can stop answering without closing anything: while
 * paused it still accepts connections and reads what either side sends, but passes nothing on, as
 * a storage service whose process hangs behaves. Resumed, it passes on what it held, in order.
 */
export interface PausableRelay {
  port: number;
  pause(): void;
  resume(): void;
  /** Connections accepted so far. */
  connections(): number;
  /**
   * The request line (`GET /devstoreaccount1/c/b.json?… HTTP/1.1`) of each request a client has
   * sent so far, passed on or held, in the order they came: what the store was asked, hung or not.
   */
  requestLines(): string[];
  close(): Promise<void>;
}

/** An HTTP/1.1 request line, at the start of a chunk or of a line in it. */
const REQUEST_LINE = /(?:^|\r\n)([A-Z]+ \S+ HTTP\/1\.[01])\r\n/g;

interface Direction {
  to: net.Socket;
  held: Buffer[];
}

/**
 * `pauseAt`, when given, is asked of every chunk a client sends until it first says yes, never
 * after: that chunk pauses the relay and is held with the rest (a request that must go unanswered,
 * named by its text).
 */
export async function startPausableRelay(
  targetPort: number,
  pauseAt?: (fromClient: Buffer) => boolean,
): Promise<PausableRelay> {
  let paused = false;
  let accepted = 0;
  const requestLines: string[] = [];
  const directions = new Set<Direction>();
  const sockets = new Set<net.Socket>();
  const forward = (from: net.Socket, to: net.Socket, fromClient: boolean) => {
    const direction: Direction = { to, held: [] };
    directions.add(direction);
    from.on("data", (chunk: Buffer) => {
      if (fromClient)
        for (const [, line] of chunk.toString("latin1").matchAll(REQUEST_LINE))
          requestLines.push(line as string);
      if (!paused && fromClient && pauseAt?.(chunk) === true) {
        paused = true;
        pauseAt = undefined;
      }
      if (paused) direction.held.push(chunk);
      else to.write(chunk);
    });
  };
  const server = net.createServer((client) => {
    accepted++;
    const target = net.connect(targetPort, "127.0.0.1");
    sockets.add(client).add(target);
    forward(client, target, true);
    forward(target, client, false);
    const end = () => {
      client.destroy();
      target.destroy();
      sockets.delete(client);
      sockets.delete(target);
    };
    for (const socket of [client, target]) socket.on("error", end).on("close", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    pause() {
      paused = true;
    },
    resume() {
      paused = false;
      for (const direction of directions) {
        const held = direction.held.splice(0);
        if (!direction.to.destroyed) for (const chunk of held) direction.to.write(chunk);
      }
    },
    connections: () => accepted,
    requestLines: () => [...requestLines],
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
