import { randomBytes } from "node:crypto";
import type { ResealReport } from "../../src/endpoints/endpoint-service";
import { keyFingerprint } from "../../src/secrets/secret-box";
import { CONTAINERS } from "../../src/store/containers";
import { connectionOf } from "../support/delivery-kit";
import { ADMIN, adminEntraSettings, asPrincipal, assignRole } from "../support/entra-host";
import { MASTER_KEY, startTestHost, type TestHost } from "../support/test-host";
import { startTestIssuer, type TestIssuer } from "../support/test-issuer";

// Key rotation as a server-side re-seal (docs/operations.md, "Rotating the encryption key"):
// POST /providers/TwinResources/resealSecrets re-encrypts every stored endpoint under the current
// key, over the wire, on hosts sharing one store.
const RESEAL = "/providers/TwinResources/resealSecrets";
const SUBSCRIPTION = "/subscriptions/00000000-0000-0000-0000-00000000000e/resourceGroups/rg";
const instance = (index: number) =>
  `${SUBSCRIPTION}/providers/Microsoft.DigitalTwins/digitalTwinsInstances/plant-${index}`;
/** Endpoints over several instances (6 each at most, the default quota). */
const ENDPOINTS = Array.from({ length: 18 }, (_, index) => `${instance(index % 3)}/endpoints/ep-${index}`);

const ACCESS_KEY = "cm90YXRlZC1zZWNyZXQtbmV2ZXItc2hvd24=";
const SIGNATURE = "cmVzZWFsLW5ldmVyLXNob3du";

function body(version: string) {
  return {
    queuePrimaryConnectionString: `Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=${ACCESS_KEY}${version};EntityPath=topic`,
    queueSecondaryConnectionString: `Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=${ACCESS_KEY}${version}b;EntityPath=topic`,
    deadLetterStorageSecret: `https://acct.blob.core.windows.net/dead?sv=2022-11-02&sp=cw&sig=${SIGNATURE}${version}`,
  };
}

const newKey = () => randomBytes(32).toString("base64");
const fingerprint = (key: string) => keyFingerprint(Buffer.from(key, "base64"));

async function reseal(host: TestHost, payload?: unknown): Promise<{ report: ResealReport; text: string }> {
  const response = await host.request(RESEAL, {
    method: "POST",
    key: MASTER_KEY,
    ...(payload !== undefined && { body: JSON.stringify(payload) }),
  });
  const text = await response.text();
  expect({ status: response.status, text }).toEqual({ status: 200, text: expect.any(String) });
  return { report: JSON.parse(text) as ResealReport, text };
}

async function putAll(host: TestHost, version: string, paths = ENDPOINTS): Promise<void> {
  for (const path of paths) {
    const response = await host.request(path, { method: "PUT", body: JSON.stringify(body(version)) });
    expect([path, [200, 201].includes(response.status)]).toEqual([path, true]);
  }
}

/** The key fingerprint each stored endpoint is sealed with, read from the store itself. */
async function storedKeyIds(host: TestHost): Promise<string[]> {
  const container = host.services.database.container(CONTAINERS.queueEndpoints.id);
  const { resources } = await container.items
    .query<{ secrets?: { keyId: string } }>("SELECT * FROM c")
    .fetchAll();
  return resources.flatMap((resource) => (resource.secrets ? [resource.secrets.keyId] : []));
}

/** A host sharing `databaseId` with these keys (the previous ones comma-separated). */
function hostWith(databaseId: string, current: string, previous: string[] = [], settings = {}) {
  return startTestHost(
    {
      SECRETS_ENCRYPTION_KEY: current,
      ...(previous.length > 0 && { SECRETS_ENCRYPTION_PREVIOUS_KEYS: previous.join(",") }),
      ...settings,
    },
    databaseId,
  );
}

describe("a rotation by re-seal", () => {
  const OLD = newKey();
  const NEW = newKey();
  let databaseId: string;

  beforeAll(async () => {
    const old = await startTestHost({ SECRETS_ENCRYPTION_KEY: OLD });
    databaseId = old.config.COSMOS_DATABASE;
    try {
      await putAll(old, "v0");
    } finally {
      await old.stop();
    }
  });

  it("takes the master key only under keys", async () => {
    const host = await hostWith(databaseId, NEW, [OLD]);
    try {
      const refused = await host.request(RESEAL, { method: "POST" });
      expect(refused.status).toBe(401);
      const report = await reseal(host, { dryRun: true });
      // A dry run writes nothing and names every endpoint left on the old key.
      expect(report.report).toMatchObject({
        currentKeyId: fingerprint(NEW),
        scanned: ENDPOINTS.length,
        resealed: 0,
        remaining: { [fingerprint(OLD)]: ENDPOINTS.length },
      });
      expect(report.report.remainingEndpoints.map((left) => left.id).sort()).toEqual([...ENDPOINTS].sort());
      expect(new Set(report.report.remainingEndpoints.map((left) => left.reason))).toEqual(
        new Set(["DryRun"]),
      );
      expect(await storedKeyIds(host)).toEqual(ENDPOINTS.map(() => fingerprint(OLD)));
    } finally {
      await host.stop();
    }
  });

  it("before the re-seal, a host with only the new key cannot open them: the old key may not go yet", async () => {
    const host = await hostWith(databaseId, NEW);
    const warn = jest.spyOn(console, "warn").mockImplementation(() => undefined);
    try {
      expect((await host.request(ENDPOINTS[0] as string)).status).toBe(500);
      const { report } = await reseal(host, { dryRun: true });
      expect(report.remaining).toEqual({ [fingerprint(OLD)]: ENDPOINTS.length });
      // Not opened by this host: the missing key is named, by fingerprint.
      const { report: real } = await reseal(host);
      expect(real.resealed).toBe(0);
      expect(new Set(real.remainingEndpoints.map((left) => left.reason))).toEqual(new Set(["KeyMissing"]));
    } finally {
      warn.mockRestore();
      await host.stop();
    }
  });

  it("two hosts racing re-seal each endpoint exactly once between them, and both report nothing left", async () => {
    const [first, second] = await Promise.all([
      hostWith(databaseId, NEW, [OLD]),
      hostWith(databaseId, NEW, [OLD]),
    ]);
    try {
      const [a, b] = await Promise.all([reseal(first), reseal(second)]);
      expect(a.report.resealed + b.report.resealed).toBe(ENDPOINTS.length);
      for (const { report } of [a, b]) {
        expect(report.remaining).toEqual({});
        expect(report.remainingEndpoints).toEqual([]);
        expect(report.resealed + report.alreadyCurrent + report.writtenMeanwhile + report.deleted).toBe(
          ENDPOINTS.length,
        );
      }
      expect(await storedKeyIds(first)).toEqual(ENDPOINTS.map(() => fingerprint(NEW)));
      // Safe to run again: nothing to do.
      const again = await reseal(second);
      expect(again.report).toMatchObject({ resealed: 0, alreadyCurrent: ENDPOINTS.length, remaining: {} });
      // The report never holds a secret, nor a key.
      for (const text of [a.text, b.text, again.text]) {
        for (const secret of [ACCESS_KEY, SIGNATURE, OLD, NEW]) expect(text).not.toContain(secret);
      }
      for (const host of [first, second]) {
        const logged = host.logs.map((entry) => entry.message).join("\n");
        for (const secret of [ACCESS_KEY, SIGNATURE, OLD, NEW]) expect(logged).not.toContain(secret);
      }
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
  });

  it("once it reports nothing left, a host with only the new key reads every endpoint", async () => {
    const host = await hostWith(databaseId, NEW);
    try {
      for (const path of ENDPOINTS) {
        const response = await host.request(path);
        expect([path, response.status]).toEqual([path, 200]);
        const endpoint = (await response.json()) as Record<string, string>;
        expect(endpoint.queuePrimaryConnectionString).toContain("SharedAccessKey=***");
      }
      const opened = await host.services.endpoints.getForDelivery({
        subscriptionId: "00000000-0000-0000-0000-00000000000e",
        resourceGroupName: "rg",
        instanceName: "plant-0",
        endpointName: "ep-0",
      });
      expect(connectionOf(opened)).toBe(body("v0").queuePrimaryConnectionString);
      expect((await reseal(host, { dryRun: true })).report.remaining).toEqual({});
    } finally {
      await host.stop();
    }
  });
});

describe("an endpoint written during the re-seal", () => {
  it("keeps the user's write, sealed under the current key", async () => {
    let key = newKey();
    const setup = await startTestHost({ SECRETS_ENCRYPTION_KEY: key });
    const databaseId = setup.config.COSMOS_DATABASE;
    await setup.stop();
    let raced = 0;
    // Each round rotates once more and writes every endpoint while the re-seal runs, until a round
    // has seen the re-seal lose at least one race to a user's write (each round checks the outcome).
    const rounds: number[] = [];
    for (let round = 0; round < 10 && raced === 0; round++) {
      const sealer = await hostWith(databaseId, key);
      await putAll(sealer, `r${round}`);
      await sealer.stop();
      const previous = key;
      key = newKey();
      const host = await hostWith(databaseId, key, [previous]);
      try {
        // One write of every endpoint, sent while the re-seal runs: each must be what is left.
        const resealed = reseal(host);
        const written = new Map<string, string>();
        await Promise.all(
          ENDPOINTS.map(async (path, index) => {
            const version = `r${round}i${index}`;
            const response = await host.request(path, { method: "PUT", body: JSON.stringify(body(version)) });
            expect(response.status).toBe(200);
            written.set(path, version);
          }),
        );
        const { report } = await resealed;
        raced += report.writtenMeanwhile;
        rounds.push(report.writtenMeanwhile);
        expect(report.remaining).toEqual({});
        expect(report.resealed + report.alreadyCurrent + report.writtenMeanwhile).toBe(ENDPOINTS.length);
        // The user's last write won, and it is sealed under the current key (a host with only it opens it).
        expect(await storedKeyIds(host)).toEqual(ENDPOINTS.map(() => fingerprint(key)));
        const newOnly = await hostWith(databaseId, key);
        try {
          for (const [index, path] of ENDPOINTS.entries()) {
            const opened = await newOnly.services.endpoints.getForDelivery({
              subscriptionId: "00000000-0000-0000-0000-00000000000e",
              resourceGroupName: "rg",
              instanceName: `plant-${index % 3}`,
              endpointName: `ep-${index}`,
            });
            expect([path, connectionOf(opened)]).toEqual([
              path,
              body(written.get(path) as string).queuePrimaryConnectionString,
            ]);
          }
        } finally {
          await newOnly.stop();
        }
      } finally {
        await host.stop();
      }
    }
    // The interleaving this test is for did happen.
    expect({ rounds, raced: raced > 0 }).toEqual({ rounds, raced: true });
  });
});

describe("under AUTH_MODE=entra", () => {
  let issuer: TestIssuer;
  let host: TestHost;
  beforeAll(async () => {
    issuer = await startTestIssuer();
    host = await startTestHost(adminEntraSettings(issuer));
    await assignRole(host, issuer, "/", "root-contributor", "Contributor");
    await assignRole(host, issuer, "/", "root-reader", "Reader");
    await assignRole(host, issuer, instance(0), "instance-owner", "Owner");
  });
  afterAll(async () => {
    await host.stop();
    await issuer.close();
  });

  const call = (name: string) => asPrincipal(host, issuer, { name })(RESEAL, { method: "POST" });

  it("is TwinResources/secrets/reseal/action at `/`: Owner and Contributor there may, Reader and an instance's Owner may not", async () => {
    expect((await call(ADMIN)).status).toBe(200);
    expect((await call("root-contributor")).status).toBe(200);
    for (const name of ["root-reader", "instance-owner"]) {
      const refused = await call(name);
      expect(refused.status).toBe(403);
      const { error } = (await refused.json()) as { error: { message: string } };
      expect(error.message).toContain("TwinResources/secrets/reseal/action");
    }
  });
});
