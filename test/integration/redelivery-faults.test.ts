import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  BlobServiceClient,
  ContainerSASPermissions,
  generateBlobSASQueryParameters,
  StorageSharedKeyCredential,
} from "@azure/storage-blob";
import { DEV_ACCOUNT, DEV_ACCOUNT_KEY } from "../../dev/stand-ins/azurite";
import { closedPort } from "../support/closed-port";
import { DeliveryStack, twinsInstance } from "../support/delivery-kit";
import { sharedStandIns } from "../support/stand-ins-env";
import type { TestHost } from "../support/test-host";

// What the endpoint write and redelivery answer for dead-letter SAS tokens and stores that cannot
// serve them, over the wire against Azurite: 400 naming the rule when the endpoint is written,
// 409 naming what is missing or refused, 503 with Retry-After when the store cannot be reached;
// never a 500, and never the signature.
jest.setTimeout(120_000);

let stack: DeliveryStack;
let host: TestHost;
const instance = twinsInstance("sas-faults");
let connection: string;
beforeAll(async () => {
  stack = await DeliveryStack.start();
  host = stack.host;
  connection = stack.serviceBus.connectionString("faults-topic");
});
afterAll(() => stack.stop());

const blobEndpoint = () =>
  /BlobEndpoint=([^;]+)/.exec(sharedStandIns().storageConnectionString)?.[1] as string;

/** A SAS URL signed with the development key, for a container that exists unless `create` is false. */
async function sasUrl(
  container: string,
  options: { permissions?: string; expiresOn?: Date; create?: boolean; origin?: string } = {},
): Promise<string> {
  const credential = new StorageSharedKeyCredential(DEV_ACCOUNT, DEV_ACCOUNT_KEY);
  const client = new BlobServiceClient(blobEndpoint(), credential).getContainerClient(container);
  if (options.create !== false) await client.createIfNotExists();
  const sas = generateBlobSASQueryParameters(
    {
      containerName: container,
      permissions: ContainerSASPermissions.parse(options.permissions ?? "racwl"),
      expiresOn: options.expiresOn ?? new Date(Date.now() + 3_600_000),
    },
    credential,
  ).toString();
  const url = new URL(client.url);
  return `${options.origin ?? url.origin}${url.pathname}?${sas}`;
}

function signatureOf(url: string): string {
  return new URL(url).searchParams.get("sig") as string;
}

async function putEndpoint(name: string, deadLetter: string): Promise<Response> {
  return host.request(`${instance}/endpoints/${name}`, {
    method: "PUT",
    body: JSON.stringify({
      queuePrimaryConnectionString: connection,
      queueSecondaryConnectionString: connection,
      deadLetterStorageSecret: deadLetter,
    }),
  });
}

async function redeliver(name: string): Promise<Response> {
  return host.request(`${instance}/endpoints/${name}/redeliverDeadLetters?api-version=2026-11-01`, {
    method: "POST",
  });
}

/** The answer's status, error code and message, checked not to hold the signature. */
async function answer(response: Response, signature: string) {
  const text = await response.text();
  expect(text).not.toContain(signature);
  expect(text).not.toContain(encodeURIComponent(signature));
  const body = JSON.parse(text) as { error: { code: string; message: string; target?: string } };
  return { status: response.status, retryAfter: response.headers.get("retry-after"), ...body.error };
}

describe("writing an endpoint", () => {
  it.each([
    ["without create", "rwl", /lacks create \(c\) permission/],
    ["without write", "rcl", /lacks write \(w\) permission/],
    ["with read and list only", "rl", /lacks create \(c\) and write \(w\) permission/],
  ])("answers 400 for a SAS token %s, naming the permission", async (_label, permissions, message) => {
    const url = await sasUrl("perm-refused", { permissions });
    const error = await answer(await putEndpoint("perm-refused", url), signatureOf(url));
    expect(error).toMatchObject({
      status: 400,
      code: "InvalidRequestContent",
      target: "deadLetterStorageSecret",
    });
    expect(error.message).toMatch(message);
  });

  it.each([
    ["a second signature", (url: string) => `${url}&sig=c2Vjb25k`, /exactly one signature/],
    ["a second signature spelled SIG", (url: string) => `${url}&SIG=c2Vjb25k`, /exactly one signature/],
    ["no permissions", (url: string) => url.replace(/&sp=[^&]*/, ""), /permissions \(sp=\) once/],
  ])("answers 400 for a SAS token with %s", async (_label, change, message) => {
    const url = change(await sasUrl("token-refused"));
    const error = await answer(await putEndpoint("token-refused", url), signatureOf(url));
    expect(error).toMatchObject({ status: 400, target: "deadLetterStorageSecret" });
    expect(error.message).toMatch(message);
  });

  it("answers 400 for an expired SAS token", async () => {
    const url = await sasUrl("expired-at-write", { expiresOn: new Date(Date.now() - 60_000) });
    const error = await answer(await putEndpoint("expired-at-write", url), signatureOf(url));
    expect(error).toMatchObject({ status: 400, target: "deadLetterStorageSecret" });
    expect(error.message).toMatch(/has expired/);
  });
});

describe("redelivering", () => {
  it("answers 409 naming read and list for a SAS with exactly the permissions dead-lettering needs (sp=cw)", async () => {
    const url = await sasUrl("write-only", { permissions: "cw" });
    expect((await putEndpoint("write-only", url)).status).toBe(201);
    const error = await answer(await redeliver("write-only"), signatureOf(url));
    expect(error).toMatchObject({
      status: 409,
      code: "DeadLettersUnavailable",
      target: "deadLetterStorageSecret",
    });
    expect(error.message).toMatch(/lacks read \(r\) and list \(l\) permission/);
  });

  it("answers 409 for a SAS token that expired after the endpoint was written", async () => {
    // Valid for as long as making the container and the PUT may take on a loaded machine (se=
    // keeps whole seconds: up to one less), then waited out by the clock, however long they took.
    const expiresOn = new Date(Date.now() + 5_000);
    const url = await sasUrl("expires-soon", { expiresOn });
    expect((await putEndpoint("expires-soon", url)).status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresOn.getTime() - Date.now()) + 100));
    const error = await answer(await redeliver("expires-soon"), signatureOf(url));
    expect(error).toMatchObject({ status: 409, code: "DeadLettersUnavailable" });
    expect(error.message).toMatch(/expired/);
  });

  it("answers 409 when the container does not exist", async () => {
    const url = await sasUrl("never-created", { create: false });
    expect((await putEndpoint("no-container", url)).status).toBe(201);
    const error = await answer(await redeliver("no-container"), signatureOf(url));
    expect(error).toMatchObject({ status: 409, code: "DeadLettersUnavailable" });
    expect(error.message).toMatch(/404 ContainerNotFound: the container .* does not exist/);
  });

  it("answers 409 when the store refuses the signature", async () => {
    const good = await sasUrl("bad-signature");
    const forged = good.replace(
      /sig=[^&]+/,
      `sig=${encodeURIComponent(Buffer.alloc(32, 7).toString("base64"))}`,
    );
    expect((await putEndpoint("bad-signature", forged)).status).toBe(201);
    const error = await answer(await redeliver("bad-signature"), signatureOf(forged));
    expect(error).toMatchObject({ status: 409, code: "DeadLettersUnavailable" });
    expect(error.message).toMatch(
      /403 (AuthenticationFailed|AuthorizationFailure): it does not accept the SAS token/,
    );
  });

  it("answers 503 with Retry-After when the store's port is closed", async () => {
    const url = await sasUrl("closed-port", { origin: `http://127.0.0.1:${await closedPort()}` });
    expect((await putEndpoint("closed-port", url)).status).toBe(201);
    const error = await answer(await redeliver("closed-port"), signatureOf(url));
    expect(error).toMatchObject({ status: 503, code: "ServiceUnavailable" });
    expect(Number(error.retryAfter)).toBeGreaterThan(0);
  });

  it("answers 409 for a store that redirects, and does not follow it", async () => {
    const target = await listen((_request, response) => response.writeHead(200).end());
    const redirecting = await listen((request, response) =>
      response.writeHead(302, { location: `${address(target.server)}${request.url}` }).end(),
    );
    try {
      const url = await sasUrl("redirected", { origin: address(redirecting.server) });
      expect((await putEndpoint("redirected", url)).status).toBe(201);
      const error = await answer(await redeliver("redirected"), signatureOf(url));
      expect(error).toMatchObject({ status: 409, code: "DeadLettersUnavailable" });
      expect(error.message).toMatch(/answered 302, a redirect, which the service does not follow/);
      expect(redirecting.hits()).toBeGreaterThan(0);
      expect(target.hits()).toBe(0);
    } finally {
      redirecting.server.close();
      target.server.close();
    }
  });
});

async function listen(
  handle: Parameters<typeof createServer>[1],
): Promise<{ server: Server; hits: () => number }> {
  let hits = 0;
  const server = createServer((request, response) => {
    hits++;
    handle?.(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, hits: () => hits };
}

function address(server: Server): string {
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
