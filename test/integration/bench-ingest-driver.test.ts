import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";

// The delivery bench's ingest client, a process of its own (built into dist/bench by the global
// setup): `prepare` makes a job's events and sends nothing, so that the timed part holds only the
// posting, as the raw SDK's run holds only its sends; the posting then sends exactly those events,
// once each, with the function key, in the shape asked.
const { spawnIngestDriver } = require(
  path.join(__dirname, "..", "..", "dist", "bench", "ingest-driver.js"),
) as typeof import("../../bench/ingest-driver");

interface Received {
  path: string;
  key: string | undefined;
  ids: string[];
}

async function ingestTarget(status: number) {
  const received: Received[] = [];
  const server = http.createServer((request, response) => {
    let text = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (text += chunk));
    request.on("end", () => {
      const key = request.headers["x-functions-key"];
      received.push({
        path: request.url ?? "",
        key: typeof key === "string" ? key : undefined,
        ids: (JSON.parse(text) as { id: string }[]).map((event) => event.id),
      });
      response.writeHead(status).end(status === 202 ? '{"accepted":1}' : "refused");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe("the bench's ingest driver", () => {
  it("sends nothing when it prepares, then every prepared event once when it posts", async () => {
    const target = await ingestTarget(202);
    const driver = await spawnIngestDriver(target.baseUrl, "bench-key");
    try {
      const post = await driver.prepare("/twins/a", 250, "prep", { perRequest: 100, inFlight: 2 });
      // Nothing may reach the host before the timed part starts.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(target.received).toHaveLength(0);

      await post();
      expect(target.received.map((request) => request.ids.length).sort((a, b) => a - b)).toEqual([
        50, 100, 100,
      ]);
      const ids = target.received.flatMap((request) => request.ids);
      expect(new Set(ids).size).toBe(250);
      expect(ids.sort()).toEqual(Array.from({ length: 250 }, (_, index) => `prep-${index}`).sort());
      expect(target.received.every((request) => request.path === "/twins/a/events")).toBe(true);
      expect(target.received.every((request) => request.key === "bench-key")).toBe(true);

      // A preparation is posted once: its events are handed over, not kept for a second run.
      await expect(post()).rejects.toThrow("no events were prepared");
      expect(target.received).toHaveLength(3);
    } finally {
      await driver.close();
      await target.close();
    }
  });

  it("fails the posting when the host does not accept a request", async () => {
    const target = await ingestTarget(503);
    const driver = await spawnIngestDriver(target.baseUrl, "bench-key");
    try {
      await expect(driver.post("/twins/b", 5, "refused", { perRequest: 5, inFlight: 1 })).rejects.toThrow(
        "ingest: 503 refused",
      );
    } finally {
      await driver.close();
      await target.close();
    }
  });
});
