import { QueueClient } from "@azure/storage-queue";
import { expectArmError } from "../support/arm";
import { sharedStandIns } from "../support/stand-ins-env";
import { FUNCTION_KEY, MASTER_KEY, startTestHost, type TestHost } from "../support/test-host";

// Issue 28, item 6 ("exact forms"), over the wire: what the service cannot carry exactly is
// refused when it arrives, never changed on the way (a lone surrogate becomes U+FFFD, 1e400
// becomes null), and each header and query form means one thing (a weak tag never passes
// If-Match; two `code`s or two `se`s are not a choice the service makes for the caller).
const INSTANCE =
  "/subscriptions/00000000-0000-0000-0000-000000000028/resourceGroups/rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/exact-1";

let host: TestHost;
let queue: QueueClient;
beforeAll(async () => {
  host = await startTestHost();
  queue = new QueueClient(sharedStandIns().storageConnectionString, host.config.TWIN_EVENTS_QUEUE);
  // The host makes it on its first write; counted before that, it must exist.
  await queue.createIfNotExists();
});
afterAll(() => host.stop());

/** Sends `text` exactly (escapes such as \ud800 stay escapes on the wire: the body is ASCII). */
function postEvents(text: string): Promise<Response> {
  return host.request(`${INSTANCE}/events`, {
    method: "POST",
    body: text,
    headers: { "content-type": "application/cloudevents-batch+json" },
  });
}

const event = (id: string, data = '{"v":1}') =>
  `{"id":"${id}","source":"/s","specversion":"1.0","type":"t","data":${data}}`;

async function queuedMessages(): Promise<number> {
  return (await queue.getProperties()).approximateMessagesCount ?? 0;
}

describe("a lone surrogate is refused at ingest, naming the field", () => {
  it.each([
    ["an id X-\\ud800", event("X-\\ud800"), "/1/id"],
    ["an id X-\\udbff", event("X-\\udbff"), "/1/id"],
    ["a low surrogate alone", event("X-\\udc00"), "/1/id"],
    ["a reversed pair", event("X-\\udc00\\ud800"), "/1/id"],
    ["a source", event("ok").replace('"/s"', '"/s\\ud800"'), "/1/source"],
    ["a string in data", event("ok", '{"name":["a","\\ud800"]}'), "/1/data/name/1"],
    ["a member name in data", event("ok", '{"\\ud800":1}'), "/1/data/\ud800"],
  ])("%s: 400, and nothing is queued", async (_label, text, target) => {
    const before = await queuedMessages();
    const error = await expectArmError(
      await postEvents(`[${event("first")},${text}]`),
      400,
      "InvalidRequestContent",
      target,
    );
    expect(error.message).toContain("lone surrogate");
    expect(await queuedMessages()).toBe(before);
  });

  it("takes a surrogate pair, escaped or not: only a lone half is refused", async () => {
    const response = await postEvents(`[${event("X-\\ud83d\\ude00")},${event("X-😀-2")}]`);
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ accepted: 2 });
  });

  it("refuses a lone surrogate in any body: the profile content string itself", async () => {
    const body = '{"authenticationProfileContent":"{\\"name\\":\\"\\ud800\\"}"}';
    await expectArmError(
      await host.request("/authenticationProfiles/surrogate", { method: "PUT", body }),
      400,
      "InvalidRequestContent",
      "/authenticationProfileContent",
    );
  });
});

describe("a number JSON cannot carry (beyond a double: Infinity) is refused", () => {
  it.each([
    ["1e400", "1e400"],
    ["-1e400", "-1e400"],
    ["an integer of 401 digits", `1${"0".repeat(400)}`],
  ])("%s in an event's data: 400 naming it, nothing queued", async (_label, number) => {
    const before = await queuedMessages();
    const error = await expectArmError(
      await postEvents(`[${event("first")},${event("big", `{"v":${number}}`)}]`),
      400,
      "InvalidRequestContent",
      "/1/data/v",
    );
    expect(error.message).toContain("beyond the range of a double");
    expect(await queuedMessages()).toBe(before);
  });

  it("keeps the largest double, and a tiny number (it rounds, as every double does)", async () => {
    const response = await postEvents(`[${event("largest", '{"v":1.7976931348623157e308,"w":1e-400}')}]`);
    expect(response.status).toBe(202);
  });
});

describe("profile content: JSON carried in a string follows the same rules", () => {
  // The content string itself is ASCII (`\\ud800` on the wire is the text \ud800): it could be
  // stored as sent, but whoever parses it gets a string UTF-8 cannot carry, or Infinity.
  it.each([
    ["a lone surrogate", '{\\"name\\":\\"a\\\\ud800\\"}', "'/name'"],
    ["1e400", '{\\"limits\\":{\\"max\\":1e400}}', "'/limits/max'"],
  ])("%s: 400 naming the field and the pointer, and nothing stored", async (_label, content, pointer) => {
    const body = `{"authenticationProfileContent":"${content}"}`;
    const error = await expectArmError(
      await host.request("/authenticationProfiles/inner", { method: "PUT", body }),
      400,
      "InvalidRequestContent",
      "authenticationProfileContent",
    );
    expect(error.message).toContain(pointer);
    expect((await host.request("/authenticationProfiles/inner")).status).toBe(404);
  });
});

describe("If-Match compares strongly: a weak tag never matches (RFC 9110 §13.1.1)", () => {
  const profile = "/authenticationProfiles/weak-tags";
  let etag: string;
  beforeAll(async () => {
    const created = await host.request(profile, {
      method: "PUT",
      body: JSON.stringify({ authenticationProfileContent: '{"v":1}' }),
    });
    expect(created.status).toBe(201);
    etag = created.headers.get("etag") as string;
  });

  it.each([
    ["PUT", JSON.stringify({ authenticationProfileContent: '{"v":2}' })],
    ["PATCH", JSON.stringify({ authenticationProfileContent: '{"v":2}' })],
    ["DELETE", undefined],
  ])("%s with If-Match: W/<current>: 412, and nothing changes", async (method, body) => {
    const error = await expectArmError(
      await host.request(profile, { method, ...(body && { body }), headers: { "if-match": `W/${etag}` } }),
      412,
      "PreconditionFailed",
      "If-Match",
    );
    expect(error.message).toContain("weak");
    const current = await host.request(profile);
    expect(current.status).toBe(200);
    expect(current.headers.get("etag")).toBe(etag);
  });

  it("passes If-Match with the strong tag beside a weak one", async () => {
    const response = await host.request(profile, {
      method: "PUT",
      body: JSON.stringify({ authenticationProfileContent: '{"v":3}' }),
      headers: { "if-match": `W/${etag}, ${etag}` },
    });
    expect(response.status).toBe(200);
    etag = response.headers.get("etag") as string;
  });

  it("still compares If-None-Match weakly: W/<current> on a read is 304, on a write 412", async () => {
    expect((await host.request(profile, { headers: { "if-none-match": `W/${etag}` } })).status).toBe(304);
    await expectArmError(
      await host.request(profile, {
        method: "PUT",
        body: JSON.stringify({ authenticationProfileContent: "{}" }),
        headers: { "if-none-match": `W/${etag}` },
      }),
      412,
      "PreconditionFailed",
      "If-None-Match",
    );
  });
});

describe("the re-seal's body: left out, or the object it documents", () => {
  // Issue 40, item 6: a JSON null body was read as no body at all.
  const reseal = (body?: string) =>
    host.request("/providers/TwinResources/resealSecrets", {
      method: "POST",
      key: MASTER_KEY,
      ...(body !== undefined && { body }),
    });

  it.each(["null", "[]", '"dryRun"', "true", "0", '{"dryRun":"yes"}', '{"dryRun":null}', '{"force":true}'])(
    "%s: 400, as any operation answers a body that is not what it documents",
    async (body) => {
      await expectArmError(await reseal(body), 400, "InvalidRequestContent");
    },
  );

  it.each([undefined, "{}", '{"dryRun":true}'])("%s: 200", async (body) => {
    const response = await reseal(body);
    expect(response.status).toBe(200);
    expect(await response.json()).toHaveProperty("currentKeyId");
  });
});

describe("a redelivery's body: left out, or the object it documents", () => {
  // The same as the re-seal's: JSON null was read as no body at all, and redelivered everything.
  const redeliver = (body?: string) =>
    host.request(
      "/subscriptions/00000000-0000-0000-0000-0000000000f0/resourceGroups/rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/forms/endpoints/none/redeliverDeadLetters",
      { method: "POST", ...(body !== undefined && { body }) },
    );

  it.each(["null", "[]", "0", '{"from":null}'])("%s: 400 before anything is looked up", async (body) => {
    await expectArmError(await redeliver(body), 400, "InvalidRequestContent");
  });

  it.each([undefined, "{}"])("%s: read as no window (the endpoint is missing: 404)", async (body) => {
    expect((await redeliver(body)).status).toBe(404);
  });
});

describe("the code query parameter under AUTH_MODE=keys: one value", () => {
  const list = (query: string, key: string | null = null) =>
    host.request(`/authenticationProfiles?${query}`, { key });

  it.each([
    [`code=${FUNCTION_KEY}&code=wrong`],
    [`code=${FUNCTION_KEY}&CODE=wrong`],
    [`code=${FUNCTION_KEY}&code=`],
  ])("%s: 400 naming code, never quoting a value", async (query) => {
    const error = await expectArmError(await list(query), 400, "InvalidRequestContent", "code");
    expect(JSON.stringify(error)).not.toContain(FUNCTION_KEY);
    expect(JSON.stringify(error)).not.toContain("wrong");
  });

  it("400 too when the key came in the header and the query holds two codes", async () => {
    await expectArmError(await list("code=a&code=b", FUNCTION_KEY), 400, "InvalidRequestContent", "code");
  });

  it("checks the first code as the Functions host does: a wrong first one is 401", async () => {
    expect((await list(`code=wrong&code=${FUNCTION_KEY}`)).status).toBe(401);
  });

  it("takes the key twice, and the name in any letter case, as the Functions host does", async () => {
    expect((await list(`code=${FUNCTION_KEY}&code=${FUNCTION_KEY}`)).status).toBe(200);
    expect((await list(`Code=${FUNCTION_KEY}`)).status).toBe(200);
  });
});

describe("the dead-letter SAS token: ISO 8601 times, each parameter once", () => {
  const SIGNATURE = "ZXhhY3QtZm9ybXMtc2ln";
  const connection = (keyName: string) =>
    `Endpoint=sb://exact.servicebus.windows.net/;SharedAccessKeyName=${keyName};SharedAccessKey=a2V5;EntityPath=twin-events`;
  const put = (name: string, query: string) =>
    host.request(`${INSTANCE}/endpoints/${name}`, {
      method: "PUT",
      body: JSON.stringify({
        queuePrimaryConnectionString: connection("send"),
        queueSecondaryConnectionString: connection("send2"),
        deadLetterStorageSecret: `https://exact.blob.core.windows.net/dead-letters?${query}&sig=${SIGNATURE}`,
      }),
    });

  it.each([
    ["se=tomorrow", "sv=2022-11-02&sp=cw&se=tomorrow", "(se=)"],
    ["a day the month lacks", "sv=2022-11-02&sp=cw&se=2030-02-30", "(se=)"],
    ["a time without a zone", "sv=2022-11-02&sp=cw&se=2030-01-01T00:00:00", "(se=)"],
    ["st=yesterday", "sv=2022-11-02&sp=cw&st=yesterday&se=2030-01-01", "(st=)"],
    ["two se", "sv=2022-11-02&sp=cw&se=2030-01-01&se=2031-01-01", "se= more than once"],
    ["two se in other cases", "sv=2022-11-02&sp=cw&se=2030-01-01&SE=2031-01-01", "se= more than once"],
    ["two sv", "sv=2022-11-02&sp=cw&sv=2020-01-01&se=2030-01-01", "sv= more than once"],
  ])("%s: 400 naming the field and the parameter, never the token", async (_label, query, problem) => {
    const error = await expectArmError(
      await put("sas-bad", query),
      400,
      "InvalidRequestContent",
      "deadLetterStorageSecret",
    );
    expect(JSON.stringify(error)).toContain(problem);
    expect(JSON.stringify(error)).not.toContain(SIGNATURE);
    expect((await host.request(`${INSTANCE}/endpoints/sas-bad`)).status).toBe(404);
  });

  it.each([
    "sv=2022-11-02&sp=cw&se=2030-01-01",
    "sv=2022-11-02&sp=cw&se=2030-01-01T00:00Z",
    "sv=2022-11-02&sp=cw&st=2020-01-01T00:00:00Z&se=2030-01-01T00:00:00.1234567Z",
    "sv=2022-11-02&sp=cw&se=2030-01-01T01:00:00%2B01:00",
    "sv=2022-11-02&sp=cw",
  ])("takes %s", async (query) => {
    const response = await put("sas-good", query);
    expect([200, 201]).toContain(response.status);
  });
});
