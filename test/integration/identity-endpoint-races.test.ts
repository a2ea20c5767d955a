import { randomUUID } from "node:crypto";
import { CONTAINERS } from "../../src/store/containers";
import { startTestHost, type TestHost } from "../support/test-host";

// CONTRACT §8 under races, on two hosts sharing one database as a scaled-out app does: one name
// hit at once by a PUT of each kind, a PATCH and a DELETE. Whatever the order, what is stored is
// one endpoint of one kind (never a sealed box beside identity settings, never one kind's
// settings under the other's answer), every 2xx answer tells the kind that was stored when it
// was written, and the losers of a kind race are refused naming authenticationType.
const ROUNDS = 12;
const INSTANCE =
  "/subscriptions/00000000-0000-0000-0000-0000000000cc/resourceGroups/race-rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/kinds";

let hosts: [TestHost, TestHost];
beforeAll(async () => {
  const database = `test-${randomUUID().slice(0, 8)}`;
  const first = await startTestHost({ ENDPOINTS_PER_INSTANCE_MAX: "50" }, database);
  hosts = [
    first,
    await startTestHost({ ENDPOINTS_PER_INSTANCE_MAX: "50" }, database, { createContainers: false }),
  ];
});
afterAll(async () => {
  await Promise.all(hosts.map((host) => host.stop()));
});

const connection = (key: string) =>
  `Endpoint=sb://race-ns.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=${key};EntityPath=race`;
const KEY_BODY = {
  queuePrimaryConnectionString: connection("cHJpbWFyeQ=="),
  queueSecondaryConnectionString: connection("c2Vjb25kYXJ5"),
};
const IDENTITY_BODY = {
  authenticationType: "IdentityBased",
  endpointUri: "sb://race-ns.servicebus.windows.net/",
  entityPath: "race",
};

/** Host `index % 2`: successive requests alternate between the hosts. */
const host = (index: number) => hosts[index % 2] as TestHost;

// biome-ignore lint/suspicious/noExplicitAny: an answer's JSON, read by path
type Json = Record<string, any>;

async function send(host: TestHost, method: string, name: string, body?: unknown) {
  const response = await host.request(`${INSTANCE}/endpoints/${name}`, {
    method,
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    method,
    status: response.status,
    json: text === "" ? undefined : (JSON.parse(text) as Json),
  };
}

async function stored(name: string): Promise<Record<string, unknown> | undefined> {
  const container = hosts[0].services.database.container(CONTAINERS.queueEndpoints.id);
  const { resources } = await container.items
    .query({
      query: "SELECT * FROM c WHERE c.instanceKey = @key AND c.id = @id",
      parameters: [
        { name: "@key", value: INSTANCE.toLowerCase() },
        { name: "@id", value: name.toLowerCase() },
      ],
    })
    .fetchAll();
  return resources[0] as Record<string, unknown> | undefined;
}

it("stores one endpoint of one kind whatever the order of a PUT of each kind, a PATCH and a DELETE", async () => {
  const seen = new Set<string>();
  for (let round = 0; round < ROUNDS; round++) {
    const name = `race-${round}`;
    // Half the rounds start from an endpoint of one kind, half from none.
    if (round % 2 === 0)
      expect((await send(hosts[1], "PUT", name, round % 4 === 0 ? KEY_BODY : IDENTITY_BODY)).status).toBe(
        201,
      );
    const answers = await Promise.all([
      send(host(round), "PUT", name, KEY_BODY),
      send(host(round + 1), "PUT", name, IDENTITY_BODY),
      send(host(round), "PATCH", name, { entityPath: "patched" }),
      ...(round % 3 === 0 ? [send(host(round + 1), "DELETE", name)] : []),
    ]);
    for (const answer of answers) {
      seen.add(`${answer.method} ${answer.status}`);
      if (answer.status === 400) {
        // A kind race lost (or a PATCH of the kind it is not): named, never a 5xx.
        const targets = (answer.json?.error?.details ?? []).map(
          (detail: { target: string }) => detail.target,
        );
        expect(targets).toEqual(
          expect.arrayContaining([answer.method === "PATCH" ? "entityPath" : "authenticationType"]),
        );
      } else {
        expect([200, 201, 204, 404]).toContain(answer.status);
      }
    }
    const document = await stored(name);
    if (document === undefined) continue;
    // One kind, whole: a sealed box or identity settings, never both, never neither.
    expect([document.secrets === undefined, document.identityBased === undefined].sort()).toEqual([
      false,
      true,
    ]);
    const read = await send(host(round), "GET", name);
    expect(read.status).toBe(200);
    expect(read.json?.authenticationType).toBe(document.identityBased ? "IdentityBased" : "KeyBased");
    if (document.identityBased) expect(read.json).not.toHaveProperty("queuePrimaryConnectionString");
    else expect(read.json?.queuePrimaryConnectionString).toContain("SharedAccessKey=***");
  }
  // The races were real: both kinds lost somewhere, and a write of each kind landed.
  expect([...seen]).toEqual(expect.arrayContaining(["PUT 400", "PUT 201"]));
});
