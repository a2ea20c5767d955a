import * as net from "node:net";
import { startDelayRelay } from "../../bench/delay-relay";
import { throughRelay } from "../../bench/delay-relay-process";

/** An upstream that answers each chunk with `reply(chunk)` and, for "bye", a last word then FIN at once. */
function upstream(): Promise<net.Server> {
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    socket.on("data", (chunk) => {
      if (String(chunk) === "bye") socket.end("closing");
      else socket.write(`echo:${chunk}`);
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

function portOf(server: net.Server): number {
  return (server.address() as net.AddressInfo).port;
}

describe("the bench's delay relay", () => {
  it("adds a round trip to every exchange, keeps order, and passes on what comes right before FIN", async () => {
    const server = await upstream();
    const relay = await startDelayRelay(portOf(server), 40);
    const client = net.connect(relay.port, "127.0.0.1");
    const received: string[] = [];
    client.on("data", (chunk) => received.push(String(chunk)));
    const ended = new Promise<void>((resolve) => client.on("end", () => resolve()));
    try {
      const started = performance.now();
      client.write("a");
      while (received.join("") !== "echo:a") await new Promise((resolve) => setTimeout(resolve, 2));
      // Not 40: Node counts the relay's timers from the loop's cached time, which a busy worker
      // lets lag the clock by a millisecond or more; without the relay an echo takes ~1 ms.
      expect(performance.now() - started).toBeGreaterThanOrEqual(30);
      client.write("b");
      await new Promise((resolve) => setTimeout(resolve, 5));
      client.write("c");
      // Waited for by its length, not for a time a loaded machine may overrun: the order is the claim.
      const echoes = "echo:aecho:becho:c";
      while (received.join("").length < echoes.length) await new Promise((resolve) => setTimeout(resolve, 2));
      expect(received.join("")).toBe(echoes);
      client.write("bye");
      await ended;
      expect(received.join("")).toBe("echo:aecho:becho:cclosing");
      expect(relay.connections()).toBe(1);
    } finally {
      client.destroy();
      await relay.close();
      server.close();
    }
  });

  it("rewrites only a connection string's endpoint port", () => {
    const direct =
      "Endpoint=sb://127.0.0.1:5672/;SharedAccessKeyName=Root;SharedAccessKey=k:1234/;UseDevelopmentEmulator=true;EntityPath=t";
    expect(throughRelay(direct, { port: 40001 })).toBe(direct.replace(":5672/", ":40001/"));
    expect(() => throughRelay("Endpoint=sb://host/;SharedAccessKey=k", { port: 1 })).toThrow(
      /no sb:\/\/host:port/,
    );
  });
});
