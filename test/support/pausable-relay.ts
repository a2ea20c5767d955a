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
  /**
   * Pauses the relay at the first chunk a client sends from now on that `matches` (asked of each
   * until it says yes, never after), holding that chunk with the rest: a request that must go
   * unanswered, named by its text. Settles once it has paused.
   */
  pauseAt(matches: (fromClient: Buffer) => boolean): Promise<void>;
  /** Connections accepted so far. */
  connections(): number;
  /**
   * The request line (`GET /devstoreaccount1/c/b.json?… HTTP/1.1`) of each request a client has
   * sent so far, passed on or held, in the order they came: what the store was asked, hung or not.
   */
  requestLines(): string[];
  /**
   * Connections a client closed while the relay held something it had sent, before the store
   * closed anything: requests the client stopped waiting for, as a deadline ends them.
   */
  givenUp(): number;
  /** Settles once clients have given up `count` held requests in all (at once if they have). */
  untilGivenUp(count?: number): Promise<void>;
  close(): Promise<void>;
}

/** An HTTP/1.1 request line, at the start of a chunk or of a line in it. */
const REQUEST_LINE = /(?:^|\r\n)([A-Z]+ \S+ HTTP\/1\.[01])\r\n/g;

interface Direction {
  to: net.Socket;
  held: Buffer[];
}

/** `pauseAt`, when given, is armed at once (PausableRelay.pauseAt). */
export async function startPausableRelay(
  targetPort: number,
  pauseAt?: (fromClient: Buffer) => boolean,
): Promise<PausableRelay> {
  let paused = false;
  let accepted = 0;
  let pauseWhere: { matches: (fromClient: Buffer) => boolean; paused: () => void } | undefined;
  let givenUp = 0;
  let closing = false;
  const givenUpWaiters = new Set<{ count: number; resolve: () => void }>();
  const onGivenUp = () => {
    for (const waiter of givenUpWaiters)
      if (givenUp >= waiter.count) {
        givenUpWaiters.delete(waiter);
        waiter.resolve();
      }
  };
  const requestLines: string[] = [];
  const directions = new Set<Direction>();
  const sockets = new Set<net.Socket>();
  const forward = (from: net.Socket, to: net.Socket, fromClient: boolean): Direction => {
    const direction: Direction = { to, held: [] };
    directions.add(direction);
    from.on("data", (chunk: Buffer) => {
      if (fromClient)
        for (const [, line] of chunk.toString("latin1").matchAll(REQUEST_LINE))
          requestLines.push(line as string);
      if (!paused && fromClient && pauseWhere?.matches(chunk) === true) {
        paused = true;
        pauseWhere.paused();
        pauseWhere = undefined;
      }
      if (paused) direction.held.push(chunk);
      else to.write(chunk);
    });
    return direction;
  };
  const server = net.createServer((client) => {
    accepted++;
    const target = net.connect(targetPort, "127.0.0.1");
    sockets.add(client).add(target);
    const fromClient = forward(client, target, true);
    forward(target, client, false);
    let firstToLeave: net.Socket | undefined;
    const leaves = (socket: net.Socket) => () => {
      firstToLeave ??= socket;
      if (!closing && firstToLeave === client && fromClient.held.length > 0) {
        fromClient.held = [];
        givenUp++;
        onGivenUp();
      }
      client.destroy();
      target.destroy();
      sockets.delete(client);
      sockets.delete(target);
    };
    for (const socket of [client, target]) socket.on("error", leaves(socket)).on("close", leaves(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const relay: PausableRelay = {
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
    pauseAt: (matches) => new Promise<void>((resolve) => (pauseWhere = { matches, paused: resolve })),
    connections: () => accepted,
    requestLines: () => [...requestLines],
    givenUp: () => givenUp,
    untilGivenUp: (count = 1) =>
      new Promise<void>((resolve) => {
        givenUpWaiters.add({ count, resolve });
        onGivenUp();
      }),
    async close() {
      closing = true;
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  if (pauseAt !== undefined) void relay.pauseAt(pauseAt);
  return relay;
}
