import { execFile } from "node:child_process";
import * as path from "node:path";
import { promisify } from "node:util";
import type { AccessToken, TokenCredential } from "@azure/core-auth";
import { ManagedIdentityCredential } from "@azure/identity";
import { ServiceBusClient } from "@azure/service-bus";
import { BlobServiceClient, RestError } from "@azure/storage-blob";
import {
  createRemoteJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  type JWTPayload,
  jwtVerify,
  SignJWT,
  UnsecuredJWT,
} from "jose";
import { type LocalTls, loadOrCreateLocalTls } from "../../dev/local-tls";
import { freePort } from "../../dev/ports";
import { type RunningAzurite, startAzurite } from "../../dev/stand-ins/azurite";
import { httpsBlobServiceWithKey, trustLocalCertificate } from "../../dev/stand-ins/azurite-https";
import {
  ENDPOINT_NO_ROLE,
  ENDPOINT_SENDER,
  LOCAL_SERVICEBUS_SENDERS,
  MANAGED_IDENTITY_ISSUER,
  SYSTEM_ASSIGNED,
  userAssignedIdentityId,
} from "../../dev/stand-ins/managed-identity/identities";
import {
  type ManagedIdentityEndpoint,
  startManagedIdentityEndpoint,
} from "../../dev/stand-ins/managed-identity/server";
import { generateSigningKey, LOCAL_TENANT_ID, type SigningKey } from "../../dev/stand-ins/openid-issuer";
import { type RunningServiceBus, startServiceBusStandIn } from "../../dev/stand-ins/service-bus";

// The identity stand-ins over the wire with the real SDKs: the managed-identity endpoint, the
// Service Bus stand-in's AMQPS listener and token checks, and Azurite's HTTPS blob service with OAuth.
const CLIENT_SCRIPT = path.join(__dirname, "..", "support", "identity-sb-client.js");
const SERVICE_BUS = "https://servicebus.azure.net";
const STORAGE = "https://storage.azure.com";

let tls: LocalTls;
let identity: ManagedIdentityEndpoint;
let serviceBus: RunningServiceBus;
let azurite: RunningAzurite;
let otherKey: SigningKey;
const savedEnv = {
  IDENTITY_ENDPOINT: process.env.IDENTITY_ENDPOINT,
  IDENTITY_HEADER: process.env.IDENTITY_HEADER,
};

beforeAll(async () => {
  tls = await loadOrCreateLocalTls();
  identity = await startManagedIdentityEndpoint();
  serviceBus = await startServiceBusStandIn({
    port: 0,
    tls: { port: 0, cert: tls.cert, key: tls.key },
    tokens: { jwksUri: identity.jwksUri, senders: LOCAL_SERVICEBUS_SENDERS },
  });
  const [blobPort, queuePort, blobTlsPort] = [await freePort(), await freePort(), await freePort()];
  azurite = await startAzurite({
    blobPort,
    queuePort,
    blobTls: { port: blobTlsPort, keyPairFile: tls.keyPairFile },
    stdio: "ignore",
  });
  otherKey = await generateSigningKey();
  // MSAL's App Service source reads these when a credential first asks for a token.
  process.env.IDENTITY_ENDPOINT = identity.endpoint;
  process.env.IDENTITY_HEADER = identity.header;
});

afterAll(async () => {
  Object.assign(process.env, savedEnv);
  for (const [name, value] of Object.entries(savedEnv)) if (value === undefined) delete process.env[name];
  await Promise.all([serviceBus?.close(), identity?.close(), azurite?.stop()]);
});

/** Claims of a managed identity token, forged as a test needs. */
function claims(audience: string, overrides: JWTPayload = {}): JWTPayload {
  const now = Math.floor(Date.now() / 1000);
  return {
    aud: audience,
    iss: MANAGED_IDENTITY_ISSUER,
    iat: now,
    nbf: now,
    exp: now + 3600,
    oid: SYSTEM_ASSIGNED.principalId,
    sub: SYSTEM_ASSIGNED.principalId,
    tid: LOCAL_TENANT_ID,
    ...overrides,
  };
}

function sign(payload: JWTPayload, key: SigningKey = identity.signingKey): Promise<string> {
  return new SignJWT(payload)
    .setProtectedHeader({ alg: "RS256", kid: key.kid, typ: "JWT" })
    .sign(key.privateKey);
}

function fixedCredential(token: string): TokenCredential {
  return {
    getToken: async (): Promise<AccessToken> => ({ token, expiresOnTimestamp: Date.now() + 3_600_000 }),
  };
}

/**
 * What the client did, and no time: a refusal surfaced at once is told from one the SDK waited
 * out by its code (UnauthorizedAccess, the broker's answer, not a timeout's ServiceTimeout).
 */
interface ClientOutcome {
  ok: boolean;
  received?: unknown[];
  error?: { name: string; code?: string; message: string };
}

/** The Service Bus SDK in a child process that trusts the local certificate (NODE_EXTRA_CA_CERTS). */
async function runClient(command: Record<string, unknown>): Promise<ClientOutcome> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [CLIENT_SCRIPT, JSON.stringify({ namespace: `localhost:${serviceBus.tlsPort}`, ...command })],
    {
      env: {
        ...process.env,
        IDENTITY_ENDPOINT: identity.endpoint,
        IDENTITY_HEADER: identity.header,
        NODE_EXTRA_CA_CERTS: tls.certFile,
      },
    },
  );
  return JSON.parse(stdout.trim().split("\n").pop() ?? "") as ClientOutcome;
}

let topics = 0;
const newTopic = () => `identity-topic-${++topics}`;

describe("managed identity endpoint", () => {
  it("gives the system-assigned identity a v1 token, signed with the published key", async () => {
    const credential = new ManagedIdentityCredential();
    const { token } = await credential.getToken(`${SERVICE_BUS}/.default`);
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: "RS256", kid: identity.signingKey.kid });
    const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(identity.jwksUri)), {
      issuer: `https://sts.windows.net/${LOCAL_TENANT_ID}/`,
      audience: SERVICE_BUS,
    });
    expect(payload).toMatchObject({
      oid: SYSTEM_ASSIGNED.principalId,
      sub: SYSTEM_ASSIGNED.principalId,
      appid: SYSTEM_ASSIGNED.clientId,
      tid: LOCAL_TENANT_ID,
      xms_mirid: SYSTEM_ASSIGNED.resourceId,
      idtyp: "app",
      ver: "1.0",
    });
    expect(payload).not.toHaveProperty("name");
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(3600);
    expect(payload.nbf).toBe(payload.iat);
  });

  it("gives a user-assigned identity named by its ARM id its own token; refuses one the app lacks, as Azure does", async () => {
    const credential = new ManagedIdentityCredential({ resourceId: ENDPOINT_SENDER.resourceId });
    expect(decodeJwt((await credential.getToken(`${STORAGE}/.default`)).token)).toMatchObject({
      aud: STORAGE,
      oid: ENDPOINT_SENDER.principalId,
      xms_mirid: ENDPOINT_SENDER.resourceId,
      appid: ENDPOINT_SENDER.clientId,
    });
    const unknown = new ManagedIdentityCredential({ resourceId: userAssignedIdentityId("not-assigned") });
    await expect(unknown.getToken(`${SERVICE_BUS}/.default`)).rejects.toMatchObject({
      name: "CredentialUnavailableError",
      message: expect.stringContaining("Identity not found"),
    });
  });

  it("answers 401 without the right X-IDENTITY-HEADER", async () => {
    const url = `${identity.endpoint}?api-version=2019-08-01&resource=${encodeURIComponent(SERVICE_BUS)}`;
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { "X-IDENTITY-HEADER": "wrong" } })).status).toBe(401);
    const right = await fetch(url, { headers: { "X-IDENTITY-HEADER": identity.header } });
    expect(right.status).toBe(200);
    expect(await right.json()).toMatchObject({
      resource: SERVICE_BUS,
      token_type: "Bearer",
      client_id: SYSTEM_ASSIGNED.clientId,
      expires_on: expect.stringMatching(/^\d+$/),
    });
  });
});

describe("Service Bus over AMQPS with managed identity tokens", () => {
  it("sends and receives as the system-assigned identity", async () => {
    const topic = newTopic();
    serviceBus.ensureSubscription(topic, "sub");
    const outcome = await runClient({ topic, subscription: "sub", body: "as-system", receive: true });
    expect(outcome).toMatchObject({ ok: true, received: ["as-system"] });
  });

  it("sends as the user-assigned sender; the message is received over plain AMQP too", async () => {
    const topic = newTopic();
    serviceBus.ensureSubscription(topic, "sub");
    const outcome = await runClient({ topic, identity: ENDPOINT_SENDER.resourceId, body: "as-sender" });
    expect(outcome).toMatchObject({ ok: true });
    const plain = new ServiceBusClient(serviceBus.connectionString());
    try {
      const receiver = plain.createReceiver(topic, "sub", { receiveMode: "receiveAndDelete" });
      const messages = await receiver.receiveMessages(1, { maxWaitTimeInMs: 5000 });
      expect(messages.map((message) => message.body)).toEqual(["as-sender"]);
    } finally {
      await plain.close();
    }
  });

  it("refuses a principal without the sender role as Service Bus does, at once", async () => {
    const outcome = await runClient({ topic: newTopic(), identity: ENDPOINT_NO_ROLE.resourceId });
    expect(outcome.error).toMatchObject({
      name: "ServiceBusError",
      code: "UnauthorizedAccess",
      message: expect.stringMatching(
        /^Unauthorized access\. 'Send' claim\(s\) are required to perform this operation\. Resource: 'sb:\/\/localhost\/identity-topic-\d+'\.$/,
      ),
    });
  });

  const forged: [string, () => Promise<string>, RegExp][] = [
    ["another audience", () => sign(claims(STORAGE)), /unexpected "aud" claim value/],
    [
      "an expired token",
      () => sign(claims(SERVICE_BUS, { iat: 1_000_000, nbf: 1_000_000, exp: 1_000_600 })),
      /"exp" claim timestamp check failed/,
    ],
    [
      "an unsigned token (alg: none)",
      async () => new UnsecuredJWT(claims(SERVICE_BUS)).encode(),
      /"alg" \(Algorithm\) Header Parameter value not allowed/,
    ],
    ["a token signed by another key", () => sign(claims(SERVICE_BUS), otherKey), /no applicable key found/],
    [
      "another issuer",
      () =>
        sign(claims(SERVICE_BUS, { iss: "https://sts.windows.net/11111111-1111-1111-1111-111111111111/" })),
      /unexpected "iss" claim value/,
    ],
  ];
  it.each(forged)("refuses %s on $cbs with 401, surfaced at once", async (_what, token, reason) => {
    const outcome = await runClient({ topic: newTopic(), token: await token() });
    expect(outcome.error).toMatchObject({
      name: "ServiceBusError",
      code: "UnauthorizedAccess",
      message: expect.stringMatching(reason),
    });
  });
});

describe("Azurite blob over HTTPS with OAuth", () => {
  const container = () => `identity-${Date.now().toString(36)}`;
  function blobService(credential: TokenCredential): BlobServiceClient {
    return new BlobServiceClient(azurite.blobTlsEndpoint as string, credential, {
      ...trustLocalCertificate(tls.certFile),
      retryOptions: { maxTries: 1 },
    });
  }

  it("takes a storage token of a managed identity to write, list and read; SharedKey reads it too", async () => {
    const name = container();
    const service = blobService(new ManagedIdentityCredential({ resourceId: ENDPOINT_SENDER.resourceId }));
    const containerClient = service.getContainerClient(name);
    await containerClient.create();
    await containerClient.getBlockBlobClient("a.json").upload("{}", 2);
    const names: string[] = [];
    for await (const blob of containerClient.listBlobsFlat()) names.push(blob.name);
    expect(names).toEqual(["a.json"]);
    const read = await containerClient.getBlobClient("a.json").downloadToBuffer();
    expect(read.toString()).toBe("{}");
    const byKey = await httpsBlobServiceWithKey(azurite.blobTlsEndpoint as string, tls.certFile)
      .getContainerClient(name)
      .getBlobClient("a.json")
      .downloadToBuffer();
    expect(byKey.toString()).toBe("{}");
  });

  it.each([
    ["an expired token", () => sign(claims(STORAGE, { iat: 1_000_000, nbf: 1_000_000, exp: 1_000_600 }))],
    ["a Service Bus token", () => sign(claims(SERVICE_BUS))],
  ])("refuses %s with 403 AuthenticationFailed", async (_what, token) => {
    const service = blobService(fixedCredential(await token()));
    const error = await service
      .getContainerClient(container())
      .create()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RestError);
    expect(error).toMatchObject({ statusCode: 403, code: "AuthenticationFailed" });
  });
});
