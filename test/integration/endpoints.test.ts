import { CONTAINERS } from "../../src/store/containers";
import { expectArmError } from "../support/arm";
import { startTestHost, type TestHost } from "../support/test-host";

// QueueEndpoint, docs/api.md: every operation and every rule over HTTP.
const INSTANCE =
  "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/Twins-RG/providers/Microsoft.DigitalTwins/digitalTwinsInstances/Factory-1";
const PRIMARY_KEY = "cHJpbWFyeS1zZWNyZXQta2V5LXZhbHVl+/=";
const SECONDARY_KEY = "c2Vjb25kYXJ5LXNlY3JldC1rZXk=";
const SAS_SIGNATURE = "dGhlLXNhcy1zaWduYXR1cmU%3D";

function connectionString(key: string, topic = "twin-events", keyName = "send"): string {
  return `Endpoint=sb://twins-ns.servicebus.windows.net/;SharedAccessKeyName=${keyName};SharedAccessKey=${key};EntityPath=${topic}`;
}

const DEAD_LETTER = `https://deadletters.blob.core.windows.net/dead-letters?sv=2022-11-02&sp=rcwl&se=2030-01-01&sig=${SAS_SIGNATURE}`;

const validBody = {
  queuePrimaryConnectionString: connectionString(PRIMARY_KEY),
  queueSecondaryConnectionString: connectionString(SECONDARY_KEY, "twin-events", "send2"),
  deadLetterStorageSecret: DEAD_LETTER,
};

let host: TestHost;
beforeAll(async () => {
  host = await startTestHost({ ENDPOINTS_PER_INSTANCE_MAX: "50" });
});
afterAll(() => host.stop());

function put(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return host.request(path, { method: "PUT", body: JSON.stringify(body), headers });
}

const endpoint = (name: string, instance = INSTANCE) => `${instance}/endpoints/${name}`;

describe("create, read, update, delete", () => {
  it("answers 201 with the masked resource and an ETag", async () => {
    const response = await put(endpoint("orders"), validBody);
    expect(response.status).toBe(201);
    expect(response.headers.get("etag")).toMatch(/^".+"$/);
    expect(await response.json()).toEqual({
      id: `${INSTANCE}/endpoints/orders`,
      name: "orders",
      twinsInstanceId: INSTANCE,
      authenticationType: "KeyBased",
      queuePrimaryConnectionString:
        "Endpoint=sb://twins-ns.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=***;EntityPath=twin-events",
      queueSecondaryConnectionString:
        "Endpoint=sb://twins-ns.servicebus.windows.net/;SharedAccessKeyName=send2;SharedAccessKey=***;EntityPath=twin-events",
      deadLetterStorageSecret: "https://deadletters.blob.core.windows.net/dead-letters?***",
      systemData: {
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
        createdBy: "default",
        createdByType: "Key",
        lastModifiedAt: expect.any(String),
        lastModifiedBy: "default",
        lastModifiedByType: "Key",
      },
    });
  });

  it("imports by its full resource path: GET the id returns the resource", async () => {
    const created = (await (await put(endpoint("importable"), validBody)).json()) as { id: string };
    const response = await host.request(created.id);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { id: string }).id).toBe(created.id);
  });

  it("matches every name segment case-insensitively and returns the stored casing", async () => {
    await put(endpoint("CasedName"), validBody);
    const lowered = await host.request(endpoint("casedname", INSTANCE.toLowerCase()));
    expect(lowered.status).toBe(200);
    const body = (await lowered.json()) as Record<string, string>;
    expect(body.name).toBe("CasedName");
    expect(body.twinsInstanceId).toBe(INSTANCE);
    const replaced = await put(endpoint("CASEDNAME", INSTANCE.toUpperCase()), validBody);
    expect(replaced.status).toBe(200);
    expect(((await replaced.json()) as Record<string, string>).id).toBe(`${INSTANCE}/endpoints/CasedName`);
  });

  it("PUT replaces with 200; without a dead-letter secret the field is absent", async () => {
    await put(endpoint("replaced"), validBody);
    const { deadLetterStorageSecret: _omitted, ...withoutDeadLetter } = validBody;
    const response = await put(endpoint("replaced"), withoutDeadLetter);
    expect(response.status).toBe(200);
    expect(await response.json()).not.toHaveProperty("deadLetterStorageSecret");
  });

  it("PATCH changes what it is sent, keeps the rest, and removes the dead-letter secret with null", async () => {
    await put(endpoint("patched"), validBody);
    const rekeyed = await host.request(endpoint("patched"), {
      method: "PATCH",
      body: JSON.stringify({
        queueSecondaryConnectionString: connectionString("bmV3LWtleQ==", "twin-events", "rotated"),
      }),
    });
    expect(rekeyed.status).toBe(200);
    const body = (await rekeyed.json()) as Record<string, string>;
    expect(body.queueSecondaryConnectionString).toContain("SharedAccessKeyName=rotated");
    expect(body.deadLetterStorageSecret).toBe("https://deadletters.blob.core.windows.net/dead-letters?***");
    const cleared = await host.request(endpoint("patched"), {
      method: "PATCH",
      body: JSON.stringify({ deadLetterStorageSecret: null }),
    });
    expect(await cleared.json()).not.toHaveProperty("deadLetterStorageSecret");
  });

  it("PATCH answers 404 for an endpoint that does not exist", async () => {
    const response = await host.request(endpoint("never-made"), { method: "PATCH", body: "{}" });
    await expectArmError(response, 404, "ResourceNotFound");
  });

  it("DELETE answers 200, then 204; GET then answers 404 naming the endpoint", async () => {
    await put(endpoint("deleted"), validBody);
    expect((await host.request(endpoint("deleted"), { method: "DELETE" })).status).toBe(200);
    expect((await host.request(endpoint("deleted"), { method: "DELETE" })).status).toBe(204);
    const error = await expectArmError(await host.request(endpoint("deleted")), 404, "ResourceNotFound");
    expect(error.message).toContain("deleted");
  });

  it("lists one instance's endpoints only, across pages", async () => {
    const other = INSTANCE.replace("Factory-1", "Factory-2");
    for (const name of ["a1", "a2", "a3"])
      expect((await put(endpoint(`list-${name}`, other), validBody)).status).toBe(201);
    await put(endpoint("elsewhere", INSTANCE.replace("Factory-1", "Factory-3")), validBody);
    const seen: string[] = [];
    let url: string | undefined = `${other}/endpoints?$top=2`;
    while (url !== undefined) {
      const response = await host.request(url.replace(host.baseUrl, ""));
      const page = (await response.json()) as { value: { name: string }[]; nextLink?: string };
      seen.push(...page.value.map((item) => item.name));
      url = page.nextLink;
    }
    expect(seen).toEqual(["list-a1", "list-a2", "list-a3"]);
  });

  it("accepts snake_case field names", async () => {
    const response = await put(endpoint("snake"), {
      queue_primary_connection_string: validBody.queuePrimaryConnectionString,
      queue_secondary_connection_string: validBody.queueSecondaryConnectionString,
      dead_letter_storage_secret: validBody.deadLetterStorageSecret,
    });
    expect(response.status).toBe(201);
  });

  it("accepts the echoed read-only fields with their current values only", async () => {
    const ok = await put(endpoint("echo"), {
      ...validBody,
      name: "ECHO",
      twinsInstanceId: INSTANCE.toLowerCase(),
      id: `${INSTANCE}/endpoints/echo`,
    });
    expect(ok.status).toBe(201);
    await expectArmError(
      await put(endpoint("echo"), { ...validBody, name: "other" }),
      400,
      "InvalidRequestContent",
      "name",
    );
    await expectArmError(
      await put(endpoint("echo"), { ...validBody, twinsInstanceId: INSTANCE.replace("Factory-1", "Other") }),
      400,
      "InvalidRequestContent",
      "twinsInstanceId",
    );
    await expectArmError(
      await put(endpoint("echo"), { ...validBody, id: "/x" }),
      400,
      "InvalidRequestContent",
      "id",
    );
  });
});

describe("validation", () => {
  it.each([
    ["all digits", "12345"],
    ["a leading hyphen", "-abc"],
    ["a trailing hyphen", "abc-"],
    ["two characters", "ab"],
    ["51 characters", "a".repeat(51)],
    ["an underscore", "a_b_c"],
  ])("answers 400 for an endpoint name with %s", async (_label, name) => {
    await expectArmError(await put(endpoint(name), validBody), 400, "InvalidRequestContent", "endpointName");
  });

  it.each(["abc", "a".repeat(50), "a1-2b"])("accepts the endpoint name %s", async (name) => {
    expect((await put(endpoint(name), validBody)).status).toBe(201);
  });

  it.each([
    ["two characters", "ab"],
    ["64 characters", "a".repeat(64)],
    ["a leading hyphen", "-twins"],
    ["a trailing hyphen", "twins-"],
    ["a dot", "twins.1"],
  ])("answers 400 for an instance name with %s", async (_label, instanceName) => {
    const instance = INSTANCE.replace("Factory-1", instanceName);
    await expectArmError(
      await put(endpoint("valid-name", instance), validBody),
      400,
      "InvalidRequestContent",
      "instanceName",
    );
  });

  it("answers 400 for a resource group name ending in a dot", async () => {
    const instance = INSTANCE.replace("Twins-RG", "rg.");
    await expectArmError(
      await put(endpoint("valid-name", instance), validBody),
      400,
      "InvalidRequestContent",
      "resourceGroupName",
    );
  });

  it.each(["Endpoint", "SharedAccessKeyName", "SharedAccessKey", "EntityPath"])(
    "answers 400 naming the missing %s of the primary connection string",
    async (part) => {
      const primary = validBody.queuePrimaryConnectionString
        .split(";")
        .filter((segment) => !segment.startsWith(`${part}=`))
        .join(";");
      const error = await expectArmError(
        await put(endpoint("bad-cs"), { ...validBody, queuePrimaryConnectionString: primary }),
        400,
        "InvalidRequestContent",
        "queuePrimaryConnectionString",
      );
      expect(error.message).toContain(part);
      expect(JSON.stringify(error)).not.toContain(PRIMARY_KEY);
    },
  );

  it("answers 400 for an Endpoint that is not sb://, on the secondary", async () => {
    const secondary = validBody.queueSecondaryConnectionString.replace("sb://", "https://");
    const error = await expectArmError(
      await put(endpoint("bad-cs"), { ...validBody, queueSecondaryConnectionString: secondary }),
      400,
      "InvalidRequestContent",
      "queueSecondaryConnectionString",
    );
    expect(error.message).toContain("Endpoint");
    expect(JSON.stringify(error)).not.toContain(SECONDARY_KEY);
  });

  it("answers 400 when the two connection strings name different topics", async () => {
    const error = await expectArmError(
      await put(endpoint("two-topics"), {
        ...validBody,
        queueSecondaryConnectionString: connectionString(SECONDARY_KEY, "other-topic"),
      }),
      400,
      "InvalidRequestContent",
      "queueSecondaryConnectionString",
    );
    expect(error.message).toContain("EntityPath");
  });

  it("answers 400 when a PATCH would leave the two topics differing", async () => {
    await put(endpoint("patch-topic"), validBody);
    const response = await host.request(endpoint("patch-topic"), {
      method: "PATCH",
      body: JSON.stringify({ queuePrimaryConnectionString: connectionString(PRIMARY_KEY, "moved") }),
    });
    await expectArmError(response, 400, "InvalidRequestContent", "queueSecondaryConnectionString");
  });

  it("answers 400 when a masked connection string is sent back", async () => {
    const got = (await (await put(endpoint("round-trip"), validBody)).json()) as Record<string, string>;
    const error = await expectArmError(await put(endpoint("round-trip"), got), 400, "InvalidRequestContent");
    // Both connection strings come back masked, and the dead-letter URL without its signature.
    expect(error.details?.map((detail) => detail.target)).toEqual([
      "queuePrimaryConnectionString",
      "queueSecondaryConnectionString",
      "deadLetterStorageSecret",
    ]);
    expect(error.details?.[0]?.message).toMatch(/masked SharedAccessKey/);
    expect(error.message).toBe(
      "The request has 3 invalid fields: queuePrimaryConnectionString, queueSecondaryConnectionString, deadLetterStorageSecret.",
    );
  });

  it("counts fields, not problems, in the message when one field has several problems", async () => {
    const broken = "Endpoint=https://x/;SharedAccessKey=***;EntityPath=-";
    const error = await expectArmError(
      await put(endpoint("many-problems"), {
        queuePrimaryConnectionString: broken,
        queueSecondaryConnectionString: broken,
      }),
      400,
      "InvalidRequestContent",
    );
    expect(error.details?.length).toBeGreaterThan(2);
    expect(error.message).toMatch(
      /^The request has 2 invalid fields: queuePrimaryConnectionString, queueSecondaryConnectionString \(\d+ problems, each listed in details\)\.$/,
    );
  });

  it.each([
    ["not a URL", "dead-letters?sig=x"],
    ["no container", "https://deadletters.blob.core.windows.net/?sig=x"],
    ["no signature", "https://deadletters.blob.core.windows.net/dead?sv=2022-11-02"],
  ])("answers 400 for a dead-letter secret with %s, without echoing it", async (_label, secret) => {
    const error = await expectArmError(
      await put(endpoint("bad-dl"), { ...validBody, deadLetterStorageSecret: secret }),
      400,
      "InvalidRequestContent",
      "deadLetterStorageSecret",
    );
    expect(JSON.stringify(error)).not.toContain(secret);
  });

  it("accepts a path-style local Azurite dead-letter URL", async () => {
    const local = "http://127.0.0.1:10000/devstoreaccount1/dead?sv=2022-11-02&sp=cw&sig=abc";
    const response = await put(endpoint("local-dl"), { ...validBody, deadLetterStorageSecret: local });
    expect(response.status).toBe(201);
    expect(((await response.json()) as Record<string, string>).deadLetterStorageSecret).toBe(
      "http://127.0.0.1:10000/devstoreaccount1/dead?***",
    );
  });

  it("answers 400 listing every missing required field", async () => {
    const error = await expectArmError(await put(endpoint("empty"), {}), 400, "InvalidRequestContent");
    expect(error.details?.map((detail) => detail.target).sort()).toEqual([
      "queuePrimaryConnectionString",
      "queueSecondaryConnectionString",
    ]);
  });

  it("answers 400 for an unknown property and an unsupported api-version", async () => {
    await expectArmError(
      await put(endpoint("extra"), { ...validBody, topic: "x" }),
      400,
      "InvalidRequestContent",
      "topic",
    );
    await expectArmError(
      await host.request(`${endpoint("extra")}?api-version=2023-09-09-preview`),
      400,
      "InvalidApiVersionParameter",
    );
  });
});

describe("one 400 names every field's problems", () => {
  const ELSEWHERE = connectionString(PRIMARY_KEY).replace(
    "twins-ns.servicebus.windows.net",
    "twins.example.com",
  );
  const MALFORMED = "Endpoint=sb://twins-ns.servicebus.windows.net/;EntityPath=twin-events";

  function targets(error: { details?: { target?: string; code: string }[] }): string[] {
    return [...new Set(error.details?.map((detail) => `${detail.target}:${detail.code}`))].sort();
  }

  it.each([
    ["the primary points elsewhere, the secondary does not read", ELSEWHERE, MALFORMED],
    ["the primary does not read, the secondary points elsewhere", MALFORMED, ELSEWHERE],
    ["neither reads", MALFORMED, MALFORMED],
  ])("%s: both fields in details", async (_label, primary, secondary) => {
    const error = await expectArmError(
      await put(endpoint("both-wrong"), {
        queuePrimaryConnectionString: primary,
        queueSecondaryConnectionString: secondary,
      }),
      400,
      "InvalidRequestContent",
    );
    expect(targets(error)).toEqual([
      "queuePrimaryConnectionString:InvalidValue",
      "queueSecondaryConnectionString:InvalidValue",
    ]);
    expect(error.message).toMatch(/^The request has 2 invalid fields: /);
  });

  it("a topic mismatch hides neither string's host problem, nor a dead-letter URL's form", async () => {
    const error = await expectArmError(
      await put(endpoint("mismatch-and-host"), {
        queuePrimaryConnectionString: ELSEWHERE,
        queueSecondaryConnectionString: connectionString(SECONDARY_KEY, "other-topic"),
        deadLetterStorageSecret: "not-a-url",
      }),
      400,
      "InvalidRequestContent",
    );
    expect(targets(error)).toEqual([
      "deadLetterStorageSecret:InvalidValue",
      "queuePrimaryConnectionString:InvalidValue",
      "queueSecondaryConnectionString:TopicMismatch",
    ]);
  });

  it("a PATCH names both strings' problems too", async () => {
    await put(endpoint("patch-both"), validBody);
    const error = await expectArmError(
      await host.request(endpoint("patch-both"), {
        method: "PATCH",
        body: JSON.stringify({
          queuePrimaryConnectionString: ELSEWHERE,
          queueSecondaryConnectionString: MALFORMED,
        }),
      }),
      400,
      "InvalidRequestContent",
    );
    expect(targets(error)).toEqual([
      "queuePrimaryConnectionString:InvalidValue",
      "queueSecondaryConnectionString:InvalidValue",
    ]);
  });

  it("the only problem a topic mismatch: its own message, as before", async () => {
    const error = await expectArmError(
      await put(endpoint("mismatch-only"), {
        ...validBody,
        queueSecondaryConnectionString: connectionString(SECONDARY_KEY, "other-topic"),
      }),
      400,
      "InvalidRequestContent",
      "queueSecondaryConnectionString",
    );
    expect(error.message).toMatch(/must name the same topic/);
  });
});

describe("secret forms and where endpoints may point", () => {
  const SIGNATURE = "c2hhcmVkLWFjY2Vzcy1zaWduYXR1cmU";
  const PASSWORD = "cGFzc3dvcmQtaW4tdGhlLXVybA";

  it("answers 400 for a SharedAccessSignature, naming the key and never its value", async () => {
    const withSignature = `Endpoint=sb://twins-ns.servicebus.windows.net/;SharedAccessSignature=SharedAccessSignature sr=twins-ns&sig=${SIGNATURE}&se=1&skn=send;EntityPath=twin-events`;
    const response = await put(endpoint("sas-form"), {
      ...validBody,
      queuePrimaryConnectionString: withSignature,
    });
    const text = await response.clone().text();
    const error = await expectArmError(
      response,
      400,
      "InvalidRequestContent",
      "queuePrimaryConnectionString",
    );
    expect(error.details?.map((detail) => detail.message)).toContainEqual(
      expect.stringContaining("has the key SharedAccessSignature, which is not accepted"),
    );
    expect(text).not.toContain(SIGNATURE);
    expect(text).not.toContain("sr=twins-ns");
  });

  it.each([
    ["a lower-case key", `${connectionString(PRIMARY_KEY)};sharedaccesskey=${SIGNATURE}`],
    ["a duplicate key", `${connectionString(PRIMARY_KEY)};SharedAccessKey=${SIGNATURE}`],
    [
      "blanks around a key",
      connectionString(PRIMARY_KEY).replace(";SharedAccessKey=", "; SharedAccessKey ="),
    ],
  ])("answers 400 for %s, without echoing a key", async (_label, primary) => {
    const response = await put(endpoint("key-forms"), {
      ...validBody,
      queuePrimaryConnectionString: primary,
    });
    const text = await response.clone().text();
    await expectArmError(response, 400, "InvalidRequestContent", "queuePrimaryConnectionString");
    expect(text).not.toContain(SIGNATURE);
    expect(text).not.toContain(PRIMARY_KEY);
  });

  it("answers 400 for a dead-letter URL with user information, never echoing it", async () => {
    const response = await put(endpoint("user-info"), {
      ...validBody,
      deadLetterStorageSecret: `https://user:${PASSWORD}@deadletters.blob.core.windows.net/dead-letters?sig=${SAS_SIGNATURE}`,
    });
    const text = await response.clone().text();
    const error = await expectArmError(response, 400, "InvalidRequestContent", "deadLetterStorageSecret");
    expect(error.message).toMatch(/user information/);
    expect(text).not.toContain(PASSWORD);
  });

  it.each([
    ["the metadata address", "queuePrimaryConnectionString", "sb://169.254.169.254/"],
    ["a private address", "queueSecondaryConnectionString", "sb://10.1.2.3/"],
    ["a decimal address", "queuePrimaryConnectionString", "sb://2130706433:5672/"],
    [
      "a look-alike name",
      "queuePrimaryConnectionString",
      "sb://twins-ns.servicebus.windows.net.evil.example/",
    ],
    [
      "user information",
      "queuePrimaryConnectionString",
      "sb://twins-ns.servicebus.windows.net@evil.example/",
    ],
  ])("answers 400 naming the field for an Endpoint at %s", async (_label, field, host) => {
    const text = (validBody as Record<string, string>)[field]?.replace(
      "sb://twins-ns.servicebus.windows.net/",
      host,
    );
    const error = await expectArmError(
      await put(endpoint("elsewhere"), { ...validBody, [field]: text }),
      400,
      "InvalidRequestContent",
      field,
    );
    expect(error.message).toMatch(/Endpoint/);
  });

  it.each([
    ["the metadata address", "https://169.254.169.254/acct/dead-letters"],
    ["plain http to the cloud", "http://deadletters.blob.core.windows.net/dead-letters"],
    ["another host", "https://storage.evil.example/dead-letters"],
    ["a private address over http", "http://10.0.0.5:10000/devstoreaccount1/dead-letters"],
  ])("answers 400 naming the field for a dead-letter URL at %s", async (_label, base) => {
    await expectArmError(
      await put(endpoint("dl-elsewhere"), { ...validBody, deadLetterStorageSecret: `${base}?sig=x` }),
      400,
      "InvalidRequestContent",
      "deadLetterStorageSecret",
    );
  });

  it("accepts the local Service Bus stand-in's connection string (loopback is allowed in tests)", async () => {
    const local =
      "Endpoint=sb://127.0.0.1:5672/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=SAS_KEY_VALUE;UseDevelopmentEmulator=true;EntityPath=twin-events";
    const response = await put(endpoint("local-bus"), {
      queuePrimaryConnectionString: local,
      queueSecondaryConnectionString: local,
    });
    expect(response.status).toBe(201);
    expect(((await response.json()) as Record<string, string>).queuePrimaryConnectionString).toBe(
      local.replace("SAS_KEY_VALUE", "***"),
    );
  });
});

describe("conditional requests", () => {
  it("honours If-Match and If-None-Match on PUT, and answers 304 on GET", async () => {
    const created = await put(endpoint("conditional"), validBody, { "If-None-Match": "*" });
    expect(created.status).toBe(201);
    const etag = created.headers.get("etag") as string;
    await expectArmError(
      await put(endpoint("conditional"), validBody, { "If-None-Match": "*" }),
      412,
      "PreconditionFailed",
    );
    expect((await put(endpoint("conditional"), validBody, { "If-Match": etag })).status).toBe(200);
    await expectArmError(
      await put(endpoint("conditional"), validBody, { "If-Match": etag }),
      412,
      "PreconditionFailed",
    );
    const current = (await host.request(endpoint("conditional"))).headers.get("etag") as string;
    expect(
      (await host.request(endpoint("conditional"), { headers: { "If-None-Match": current } })).status,
    ).toBe(304);
    await expectArmError(
      await host.request(endpoint("conditional"), { method: "DELETE", headers: { "If-Match": etag } }),
      412,
      "PreconditionFailed",
    );
  });
});

describe("secrets at rest", () => {
  it("stores no plaintext secret in the Cosmos document, and names the sealing key", async () => {
    await put(endpoint("sealed"), validBody);
    const container = host.services.database.container(CONTAINERS.queueEndpoints.id);
    const { resources } = await container.items
      .query({ query: "SELECT * FROM c WHERE c.id = 'sealed'" })
      .fetchAll();
    expect(resources).toHaveLength(1);
    const raw = JSON.stringify(resources[0]);
    for (const secret of [PRIMARY_KEY, SECONDARY_KEY, SAS_SIGNATURE, "SharedAccessKey", "sig="]) {
      expect(raw).not.toContain(secret);
    }
    expect(resources[0].secrets.keyId).toMatch(/^[0-9a-f]{16}$/);
    expect(resources[0].topic).toBe("twin-events");
  });
});
