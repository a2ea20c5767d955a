import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { makeEvents, postInShape } from "../../bench/bench-events";
import { LoopbackClient } from "../../bench/http-client";

// The bench's ingest shape (issue 21: requests of 100 events, 4 in flight): every event posted
// once, in order within each request, never more requests at once than asked.
async function server(delayMs: number) {
  const bodies: string[][] = [];
  let inFlight = 0;
  let most = 0;
  const listener = http.createServer((request, response) => {
    inFlight++;
    most = Math.max(most, inFlight);
    let text = "";
    request.on("data", (chunk) => (text += chunk));
    request.on("end", () => {
      bodies.push((JSON.parse(text) as { id: string }[]).map((event) => event.id));
      setTimeout(() => {
        inFlight--;
        response.writeHead(202).end('{"accepted":1}');
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const { port } = listener.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    bodies,
    most: () => most,
    close: () => new Promise<void>((resolve) => listener.close(() => resolve())),
  };
}

describe("postInShape", () => {
  it("posts every event once, in requests of perRequest, at most inFlight at a time", async () => {
    // Long enough that all four first requests are in flight together, even on a slow machine.
    const target = await server(50);
    const client = new LoopbackClient(target.baseUrl, 64);
    try {
      const events = makeEvents(1050, "shape");
      await postInShape(client, "key", "/i/a", events, { perRequest: 100, inFlight: 4 });
      expect(target.bodies).toHaveLength(11);
      expect(target.bodies.map((ids) => ids.length).sort((a, b) => a - b)[0]).toBe(50);
      expect(target.bodies.flat().sort()).toEqual(events.map((event) => event.id).sort());
      for (const ids of target.bodies) {
        const indexes = ids.map((id) => Number(id.split("-").pop()));
        expect(indexes).toEqual([...indexes].sort((a, b) => a - b));
      }
      expect(target.most()).toBe(4);
    } finally {
      client.close();
      await target.close();
    }
  });

  it("throws when a request is not accepted", async () => {
    const refusing = http.createServer((_, response) => response.writeHead(503).end("down"));
    await new Promise<void>((resolve) => refusing.listen(0, "127.0.0.1", resolve));
    const { port } = refusing.address() as AddressInfo;
    const client = new LoopbackClient(`http://127.0.0.1:${port}`, 1);
    try {
      await expect(
        postInShape(client, "key", "/i/a", makeEvents(3, "x"), {
          perRequest: 2,
          inFlight: 1,
        }),
      ).rejects.toThrow("ingest: 503 down");
    } finally {
      client.close();
      await new Promise<void>((resolve) => refusing.close(() => resolve()));
    }
  });
});
