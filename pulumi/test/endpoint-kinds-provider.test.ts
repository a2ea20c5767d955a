import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { QueueEndpoint } from "../../client/types";
import {
  ENDPOINT_IDENTITY_ID,
  ENDPOINT_INPUT,
  IDENTITY_ENDPOINT_INPUT,
  instanceId,
  rejection,
} from "../../test/client/fixtures";
import { adoptEndpoint } from "../src/adopt-existing";
import {
  type EndpointProviderInputs,
  type EndpointProviderOutputs,
  QueueEndpointProvider,
} from "../src/queue-endpoint-provider";

// The QueueEndpoint provider's requests for each kind, against a recording stand-in of the endpoint
// routes on loopback that answers as the service's schema says (no service stack): what is sent,
// with which method and precondition, and what the state keeps.
const INSTANCE = instanceId("kinds");

interface Recorded {
  method: string;
  url: string;
  ifMatch: string | undefined;
  ifNoneMatch: string | undefined;
  body: Record<string, unknown> | undefined;
}

const requests: Recorded[] = [];
/** What the stand-in answers next, as the endpoint's JSON (systemData and id added). */
let answer: Record<string, unknown> = {};
let server: Server;
let serviceEndpoint: string;

async function read(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

beforeAll(async () => {
  server = createServer(async (request, response) => {
    const text = await read(request);
    requests.push({
      method: request.method ?? "",
      url: request.url ?? "",
      ifMatch: request.headers["if-match"] as string | undefined,
      ifNoneMatch: request.headers["if-none-match"] as string | undefined,
      body: text === "" ? undefined : (JSON.parse(text) as Record<string, unknown>),
    });
    const name = decodeURIComponent(new URL(request.url ?? "/", "http://x").pathname.split("/").pop() ?? "");
    response.writeHead(request.method === "PUT" ? 201 : 200, {
      "content-type": "application/json",
      etag: '"1"',
    });
    response.end(
      JSON.stringify({
        id: `${INSTANCE}/endpoints/${name}`,
        name,
        twinsInstanceId: INSTANCE,
        ...answer,
        systemData: {},
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  serviceEndpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  requests.length = 0;
});

const provider = new QueueEndpointProvider();
function identityInputs(changes: Partial<EndpointProviderInputs> = {}): EndpointProviderInputs {
  return {
    ...IDENTITY_ENDPOINT_INPUT,
    twinsInstanceId: INSTANCE,
    name: "orders",
    serviceEndpoint,
    serviceKey: "key-1",
    ...changes,
  };
}

describe("an identity-based QueueEndpoint", () => {
  it("is created by a PUT of its fields and authenticationType (create only), and kept whole in state", async () => {
    answer = { ...IDENTITY_ENDPOINT_INPUT };
    const created = await provider.create(identityInputs());
    expect(requests).toEqual([
      {
        method: "PUT",
        url: expect.stringMatching(/\/endpoints\/orders(\?|$)/),
        ifMatch: undefined,
        ifNoneMatch: "*",
        body: { ...IDENTITY_ENDPOINT_INPUT },
      },
    ]);
    expect(created.outs).toEqual({
      ...IDENTITY_ENDPOINT_INPUT,
      twinsInstanceId: INSTANCE,
      name: "orders",
      serviceEndpoint,
      serviceKey: "key-1",
    });
  });

  it("is updated by a PATCH of what changed only, that must find it (If-Match: *)", async () => {
    const identity = { type: "UserAssigned" as const, userAssignedIdentity: ENDPOINT_IDENTITY_ID };
    const olds = {
      ...identityInputs({ identity }),
      authenticationType: "IdentityBased",
    } as EndpointProviderOutputs;
    answer = { ...IDENTITY_ENDPOINT_INPUT, identity, entityPath: "other-topic" };
    const updated = await provider.update(
      `${INSTANCE}/endpoints/orders`,
      olds,
      identityInputs({ identity, entityPath: "other-topic" }),
    );
    expect(requests.map(({ method, ifMatch, body }) => ({ method, ifMatch, body }))).toEqual([
      { method: "PATCH", ifMatch: "*", body: { entityPath: "other-topic" } },
    ]);
    expect(updated.outs).toMatchObject({ entityPath: "other-topic", identity });
  });

  it("drops its dead-letter location with null, and keeps the program's absent identity as absent", async () => {
    const olds = { ...identityInputs(), authenticationType: "IdentityBased" } as EndpointProviderOutputs;
    const { deadLetterUri: _d, ...news } = identityInputs();
    // The service answers the system-assigned identity spelt out: the program's absence means the same.
    const { deadLetterUri: _a, ...answered } = IDENTITY_ENDPOINT_INPUT;
    answer = { ...answered, identity: { type: "SystemAssigned" } };
    const updated = await provider.update(`${INSTANCE}/endpoints/orders`, olds, news);
    expect(requests[0]?.body).toEqual({ deadLetterUri: null });
    expect(updated.outs).not.toHaveProperty("deadLetterUri");
    expect(updated.outs).not.toHaveProperty("identity");
  });

  it("reads back from the id alone with every field: nothing is masked", async () => {
    answer = { ...IDENTITY_ENDPOINT_INPUT };
    const read = await provider.read(`${INSTANCE}/endpoints/orders`, {
      serviceEndpoint,
      serviceKey: "key-1",
    });
    expect(read.props).toMatchObject({ ...IDENTITY_ENDPOINT_INPUT, name: "orders" });
  });
});

describe("a key-based QueueEndpoint, as before the kinds", () => {
  it("is created and updated by PUTs of its secrets without authenticationType; its state says KeyBased", async () => {
    const inputs: EndpointProviderInputs = {
      ...ENDPOINT_INPUT,
      twinsInstanceId: INSTANCE,
      name: "keyed",
      serviceEndpoint,
      serviceKey: "key-1",
    };
    // The service masks the secrets; the provider keeps the program's, which mask to the same.
    answer = {
      authenticationType: "KeyBased",
      queuePrimaryConnectionString: ENDPOINT_INPUT.queuePrimaryConnectionString.replace(
        /SharedAccessKey=[^;]+/,
        "SharedAccessKey=***",
      ),
      queueSecondaryConnectionString: ENDPOINT_INPUT.queueSecondaryConnectionString.replace(
        /SharedAccessKey=[^;]+/,
        "SharedAccessKey=***",
      ),
    };
    const created = await provider.create(inputs);
    const { deadLetterStorageSecret: _d, ...withoutDeadLetter } = inputs;
    await provider.update(created.id, created.outs, withoutDeadLetter);
    expect(
      requests.map(({ method, ifMatch, ifNoneMatch, body }) => ({ method, ifMatch, ifNoneMatch, body })),
    ).toEqual([
      { method: "PUT", ifMatch: undefined, ifNoneMatch: "*", body: { ...ENDPOINT_INPUT } },
      {
        method: "PUT",
        ifMatch: "*",
        ifNoneMatch: undefined,
        body: {
          queuePrimaryConnectionString: ENDPOINT_INPUT.queuePrimaryConnectionString,
          queueSecondaryConnectionString: ENDPOINT_INPUT.queueSecondaryConnectionString,
        },
      },
    ]);
    expect(created.outs).toMatchObject({
      authenticationType: "KeyBased",
      queuePrimaryConnectionString: ENDPOINT_INPUT.queuePrimaryConnectionString,
    });
  });
});

describe("importing an endpoint (adoptEndpoint)", () => {
  const existing: QueueEndpoint = {
    id: `${INSTANCE}/endpoints/orders`,
    name: "orders",
    twinsInstanceId: INSTANCE,
    ...IDENTITY_ENDPOINT_INPUT,
    identity: { type: "UserAssigned", userAssignedIdentity: ENDPOINT_IDENTITY_ID },
    systemData: {},
  } as QueueEndpoint;
  const program = {
    ...identityInputs(),
    identity: { type: "UserAssigned" as const, userAssignedIdentity: ENDPOINT_IDENTITY_ID.toUpperCase() },
  };

  it("adopts an identity-based endpoint the program describes (an ARM id in another casing is the same)", () => {
    expect(adoptEndpoint(existing, program)).toBe(existing);
  });

  it("refuses one of the other kind, naming authenticationType only", async () => {
    const error = (await rejection(async () =>
      adoptEndpoint(existing, { ...ENDPOINT_INPUT, twinsInstanceId: INSTANCE, name: "orders" }),
    )) as Error;
    expect(error.message).toMatch(/differs from the program in authenticationType:/);
  });

  it("names the identity-based fields that differ", async () => {
    const error = (await rejection(async () =>
      adoptEndpoint(existing, { ...program, entityPath: "other", identity: undefined }),
    )) as Error;
    expect(error.message).toMatch(/differs from the program in entityPath, identity:/);
  });
});
