import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Server } from "node:https";
import type { AddressInfo } from "node:net";
import { loadCosmosServerWithAtomicBatch } from "../../dev/stand-ins/cosmos-atomic-batch";
import { COSMOS_EMULATOR_KEY } from "../../dev/stand-ins/cosmos-server";
import type { OpenIdIssuer } from "../../dev/stand-ins/openid-issuer";
import { ADMIN, adminEntraSettings, asPrincipal } from "./entra-host";
import { startTestHost, type TestHost } from "./test-host";
import { startTestIssuer } from "./test-issuer";

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

/**
 * Two hosts on one new database of a holding Cosmos DB server of their own, as a scaled-out app
 * runs: AUTH_MODE=entra with ADMIN as Owner and no grants cache, so either host sees at once what
 * the other wrote. The setting of the race tests.
 */
export interface RacingHosts {
  cosmos: HoldingCosmos;
  issuer: OpenIdIssuer;
  hosts: [TestHost, TestHost];
  /** Host `index % 2`: consecutive indexes alternate between the two. */
  on(index: number): TestHost;
  /** Requests as ADMIN on host `index % 2`. */
  admin(index: number): ReturnType<typeof asPrincipal>;
  stop(): Promise<void>;
}

/** RacingHosts on a database named `${databasePrefix}-` and a random suffix. */
export async function startRacingHosts(databasePrefix: string): Promise<RacingHosts> {
  const cosmos = await startHoldingCosmos();
  const issuer = await startTestIssuer();
  const settings = { ...adminEntraSettings(issuer, 0), ...cosmos.settings };
  const database = `${databasePrefix}-${randomUUID().slice(0, 8)}`;
  const first = await startTestHost(settings, database);
  const hosts: [TestHost, TestHost] = [
    first,
    await startTestHost(settings, database, { createContainers: false }),
  ];
  const on = (index: number) => hosts[index % 2] as TestHost;
  return {
    cosmos,
    issuer,
    hosts,
    on,
    admin: (index) => asPrincipal(on(index), issuer, { name: ADMIN }),
    async stop() {
      await Promise.all(hosts.map((host) => host.stop()));
      await issuer.close();
      await cosmos.close();
    },
  };
}
