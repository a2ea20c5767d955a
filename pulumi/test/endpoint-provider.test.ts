import type { ServiceError, TwinServiceClient } from "../../client";
import {
  clientFor,
  connectionString,
  DEAD_LETTER,
  ENDPOINT_INPUT,
  instanceId,
  keyBased,
  PRIMARY_KEY,
  rejection,
} from "../../test/client/fixtures";
import { FUNCTION_KEY, startTestHost, type TestHost } from "../../test/support/test-host";
import { maskConnectionString } from "../src/masked-secrets";
import { type EndpointProviderInputs, QueueEndpointProvider } from "../src/queue-endpoint-provider";
import { ENVIRONMENT } from "../src/service-connection";

// The QueueEndpoint provider's operations, called directly against the local stack.
const INSTANCE = instanceId("Pulumi-Factory");
const OTHER_KEY = "b3RoZXIta2V5LXZhbHVl";

let host: TestHost;
let client: TwinServiceClient;
let connection: { serviceEndpoint: string; serviceKey: string };
const provider = new QueueEndpointProvider();
beforeAll(async () => {
  host = await startTestHost({ ENDPOINTS_PER_INSTANCE_MAX: "50" });
  client = clientFor(host);
  connection = { serviceEndpoint: host.baseUrl, serviceKey: FUNCTION_KEY };
});
afterAll(() => host.stop());

function inputs(
  name: string | undefined,
  changes: Partial<EndpointProviderInputs> = {},
): EndpointProviderInputs {
  return {
    ...ENDPOINT_INPUT,
    twinsInstanceId: INSTANCE,
    ...(name !== undefined && { name }),
    ...connection,
    ...changes,
  };
}

describe("check: auto-naming", () => {
  it("names an unnamed endpoint <logical name>-<7 random chars>", async () => {
    const { inputs: checked } = await provider.check({}, inputs(undefined, { logicalName: "orders" }));
    expect(checked.name).toMatch(/^orders-[a-z0-9]{7}$/);
  });

  it("keeps the name it gave on every later check, so an update never renames", async () => {
    const first = await provider.check({}, inputs(undefined, { logicalName: "orders" }));
    const second = await provider.check(first.inputs, inputs(undefined, { logicalName: "orders" }));
    expect(second.inputs.name).toBe(first.inputs.name);
  });

  it("takes the name of the import id, and leaves a given name alone", async () => {
    const imported = await provider.check(
      {},
      inputs(undefined, { importId: `${INSTANCE}/endpoints/legacy` }),
    );
    expect(imported.inputs.name).toBe("legacy");
    expect((await provider.check({}, inputs("given"))).inputs.name).toBe("given");
  });
});

describe("create", () => {
  it("creates the endpoint; the id is its full path; outputs keep the real secrets, not the masks", async () => {
    const created = await provider.create(inputs("created"));
    expect(created.id).toBe(`${INSTANCE}/endpoints/created`);
    // The state spells out the kind the program left to its default.
    expect(created.outs).toEqual({ ...inputs("created"), authenticationType: "KeyBased" });
    const stored = keyBased(await client.endpoints.get(INSTANCE, "created"));
    expect(stored.queuePrimaryConnectionString).toBe(
      maskConnectionString(ENDPOINT_INPUT.queuePrimaryConnectionString),
    );
  });

  it("auto-names when check did not run", async () => {
    const created = await provider.create(inputs(undefined, { logicalName: "direct" }));
    expect(created.outs.name).toMatch(/^direct-[a-z0-9]{7}$/);
  });

  it("fails rather than take over an endpoint that exists (412)", async () => {
    await client.endpoints.put(INSTANCE, "taken", ENDPOINT_INPUT);
    const error = (await rejection(() => provider.create(inputs("taken")))) as ServiceError;
    expect({ status: error.status, code: error.code }).toEqual({ status: 412, code: "PreconditionFailed" });
  });

  it("with an import id, adopts the endpoint when the program matches it (in masked form)", async () => {
    const existing = await client.endpoints.put(INSTANCE, "Legacy", ENDPOINT_INPUT);
    const adopted = await provider.create(inputs("legacy", { importId: existing.id }));
    expect(adopted.id).toBe(existing.id);
    expect(adopted.outs.queuePrimaryConnectionString).toBe(ENDPOINT_INPUT.queuePrimaryConnectionString);
  });

  it("with an import id, refuses an endpoint that differs, naming the fields only", async () => {
    const existing = await client.endpoints.put(INSTANCE, "legacy-2", ENDPOINT_INPUT);
    const error = (await rejection(() =>
      provider.create(
        inputs("legacy-2", {
          importId: existing.id,
          queueSecondaryConnectionString: connectionString(OTHER_KEY, "another-rule"),
          deadLetterStorageSecret: undefined,
        }),
      ),
    )) as Error;
    expect(error.message).toMatch(
      /differs from the program in queueSecondaryConnectionString, deadLetterStorageSecret/,
    );
    expect(error.message).not.toContain(OTHER_KEY);
  });

  it("a 400 names the field and never quotes the secret", async () => {
    const error = (await rejection(() =>
      provider.create(inputs("bad", { queuePrimaryConnectionString: `SharedAccessKey=${PRIMARY_KEY}` })),
    )) as ServiceError;
    expect({ status: error.status, target: error.target }).toEqual({
      status: 400,
      target: "queuePrimaryConnectionString",
    });
    expect(JSON.stringify({ ...error, message: error.message })).not.toContain(PRIMARY_KEY);
  });
});

describe("read", () => {
  it("reads from the id alone: masked secrets, names as stored", async () => {
    const created = await provider.create(inputs("import-me"));
    const saved = { ...process.env };
    process.env[ENVIRONMENT.endpoint] = host.baseUrl;
    process.env[ENVIRONMENT.key] = FUNCTION_KEY;
    try {
      const read = await new QueueEndpointProvider().read(created.id);
      expect(read).toEqual({
        id: created.id,
        props: {
          twinsInstanceId: INSTANCE,
          name: "import-me",
          authenticationType: "KeyBased",
          queuePrimaryConnectionString: maskConnectionString(ENDPOINT_INPUT.queuePrimaryConnectionString),
          queueSecondaryConnectionString: maskConnectionString(ENDPOINT_INPUT.queueSecondaryConnectionString),
          deadLetterStorageSecret: "https://deadletters.blob.core.windows.net/dead-letters?***",
        },
      });
    } finally {
      process.env = saved;
    }
  });

  it("keeps the real secrets in state while the service's masks still match them", async () => {
    const created = await provider.create(inputs("refreshed"));
    expect(await provider.read(created.id, created.outs)).toEqual({ id: created.id, props: created.outs });
  });

  it("shows a secret changed outside Pulumi as the service's mask, so the next update writes it back", async () => {
    const created = await provider.create(inputs("drifted"));
    await client.endpoints.update(INSTANCE, "drifted", {
      queuePrimaryConnectionString: connectionString(OTHER_KEY, "rotated-rule"),
      deadLetterStorageSecret: null,
    });
    const read = await provider.read(created.id, created.outs);
    expect(read.props).toEqual({
      ...created.outs,
      queuePrimaryConnectionString: connectionString("***", "rotated-rule"),
      deadLetterStorageSecret: undefined,
    });
    const diff = await provider.diff(created.id, read.props as never, inputs("drifted"));
    expect(diff).toMatchObject({ changes: true, replaces: [] });
  });

  it("answers no id for an endpoint deleted outside Pulumi", async () => {
    const created = await provider.create(inputs("vanishing"));
    await client.endpoints.delete(INSTANCE, "vanishing");
    expect(await provider.read(created.id, created.outs)).toEqual({});
  });

  it("refuses an id that is not an endpoint's path", async () => {
    await expect(provider.read("/subscriptions/x/endpoints", connection)).rejects.toThrow(
      /not a QueueEndpoint id/,
    );
  });
});

describe("update and delete", () => {
  it("update rewrites the secrets in place; dropping the dead-letter secret removes it", async () => {
    const created = await provider.create(inputs("updatable"));
    const news = inputs("updatable", {
      queuePrimaryConnectionString: connectionString(OTHER_KEY),
      deadLetterStorageSecret: undefined,
    });
    const updated = await provider.update(created.id, created.outs, news);
    expect(updated.outs).toEqual({ ...news, authenticationType: "KeyBased" });
    const stored = keyBased(await client.endpoints.get(INSTANCE, "updatable"));
    expect(stored.deadLetterStorageSecret).toBeUndefined();
    expect(stored.queuePrimaryConnectionString).toBe(connectionString("***"));
  });

  it("update does not recreate an endpoint deleted meanwhile (412)", async () => {
    const created = await provider.create(inputs("gone-before-update"));
    await client.endpoints.delete(INSTANCE, "gone-before-update");
    const error = (await rejection(() =>
      provider.update(
        created.id,
        created.outs,
        inputs("gone-before-update", { deadLetterStorageSecret: DEAD_LETTER }),
      ),
    )) as ServiceError;
    expect(error.status).toBe(412);
  });

  it("delete removes the endpoint, and does not fail when it is already gone", async () => {
    const created = await provider.create(inputs("deletable"));
    await provider.delete(created.id, created.outs);
    await expect(client.endpoints.get(INSTANCE, "deletable")).rejects.toMatchObject({ status: 404 });
    await expect(provider.delete(created.id, created.outs)).resolves.toBeUndefined();
  });
});
