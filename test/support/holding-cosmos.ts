import type { IncomingMessage, ServerResponse } from "node:http";
import type { Server } from "node:https";
import type { AddressInfo } from "node:net";
import { loadCosmosServerWithAtomicBatch } from "../../dev/stand-ins/cosmos-atomic-batch";
import { COSMOS_EMULATOR_KEY } from "../../dev/stand-ins/cosmos-server";

/** A request held on its way to the server. */
export interface Hold {
  /** Settles when the held request has come. */
  reached: Promise<void>;
  /** Lets it through to the server. */
  release(): void;
}

export interface HoldingCosmos {
  /** COSMOS_ENDPOINT and COSMOS_KEY of this server, for hosts that share it. */
  settings: { COSMOS_ENDPOINT: string; COSMOS_KEY: string };
  /** Holds the next request that `matches`, before the server reads it. */
  holdWhere(matches: (request: IncomingMessage) => boolean): Hold;
  close(): Promise<void>;
}

type Listener = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * A Cosmos DB server (with the atomic batch) of a test's own, for races on hosts that share it:
 * one request's write can be held while another request runs, then let through, to place an
 * interleaving exactly instead of hoping for it.
 */
export async function startHoldingCosmos(): Promise<HoldingCosmos> {
  const holds: {
    matches: (request: IncomingMessage) => boolean;
    reached: () => void;
    released: Promise<void>;
  }[] = [];
  const cosmos: Server = loadCosmosServerWithAtomicBatch().createHttpsServer({ keepAlive: true });
  const serve = cosmos.listeners("request") as Listener[];
  cosmos.removeAllListeners("request");
  cosmos.on("request", (request: IncomingMessage, response: ServerResponse) => {
    const index = holds.findIndex((hold) => hold.matches(request));
    const [hold] = index < 0 ? [] : holds.splice(index, 1);
    hold?.reached();
    void (hold?.released ?? Promise.resolve()).then(() => {
      for (const listener of serve) listener.call(cosmos, request, response);
    });
  });
  await new Promise<void>((resolve) => cosmos.listen(0, "127.0.0.1", resolve));
  return {
    settings: {
      COSMOS_ENDPOINT: `https://127.0.0.1:${(cosmos.address() as AddressInfo).port}/`,
      COSMOS_KEY: COSMOS_EMULATOR_KEY,
    },
    holdWhere(matches) {
      let reached = () => {};
      let release = () => {};
      holds.push({
        matches,
        reached: () => reached(),
        released: new Promise<void>((resolve) => {
          release = resolve;
        }),
      });
      return { reached: new Promise<void>((resolve) => (reached = resolve)), release: () => release() };
    },
    close: () =>
      new Promise<void>((resolve) => {
        cosmos.close(() => resolve());
        cosmos.closeAllConnections();
      }),
  };
}
