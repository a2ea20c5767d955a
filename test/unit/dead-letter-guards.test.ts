import { createHash, createHmac, hkdfSync, randomBytes } from "node:crypto";
import { nameKey } from "../../src/common/name-key";
import { deadLetterPlace } from "../../src/delivery/dead-letter-container";
import { DeadLetterMarks, MARK_KEY_METADATA, MARK_METADATA } from "../../src/delivery/dead-letter-mark";
import { endpointIdMetadata, namesEndpoint } from "../../src/delivery/dead-letter-writer";
import { EndpointCache } from "../../src/delivery/endpoint-cache";
import type { InstancePath } from "../../src/endpoints/endpoint-path";
import type { EndpointService, InstanceDelivery } from "../../src/endpoints/endpoint-service";

// The service's mark on its dead letters (what a planted or copied blob cannot carry), and the
// endpoint cache answering a message owed under a version it does not hold.
const ENDPOINT =
  "/subscriptions/s/resourceGroups/rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/a/endpoints/ep";
const PLACE = "acct.blob.core.windows.net/dead";
const NAME = "ep/2026/11/22/08/evt-1.json";
const BODY = JSON.stringify({ id: "evt-1", source: "/s", specversion: "1.0", type: "t" });

describe("the dead-letter mark", () => {
  const key = randomBytes(32);
  const marks = new DeadLetterMarks(key);
  const written = { endpointId: ENDPOINT, place: PLACE, blobName: NAME, body: BODY };
  const mark = marks.mark(written);

  it("verifies for the endpoint (in any letter case), place, name and body it was made for", () => {
    expect(marks.verifies(mark, { ...written, body: Buffer.from(BODY) })).toBe(true);
    expect(marks.verifies(mark, { ...written, endpointId: ENDPOINT.toUpperCase() })).toBe(true);
  });

  it.each([
    ["another instance's endpoint of that name", { endpointId: ENDPOINT.replace("/a/", "/b/") }],
    ["another name (a copy)", { blobName: "ep/2026/11/22/08/evt-1.1.json" }],
    ["another body", { body: BODY.replace("evt-1", "evt-2") }],
    ["another container (a copy)", { place: "acct.blob.core.windows.net/other" }],
    ["another account's container of that name", { place: "other.blob.core.windows.net/dead" }],
  ])("does not verify for %s", (_label, change) => {
    expect(marks.verifies(mark, { ...written, ...change })).toBe(false);
  });

  it("tells apart resource groups ARM tells apart, though they lower-case alike (K and the Kelvin sign)", () => {
    const rk = { ...written, endpointId: ENDPOINT.replace("/rg/", "/rk/") };
    const rkMark = marks.mark(rk);
    expect(marks.verifies(rkMark, { ...rk, endpointId: ENDPOINT.replace("/rg/", "/RK/") })).toBe(true);
    expect(marks.verifies(rkMark, { ...rk, endpointId: ENDPOINT.replace("/rg/", "/r\u212A/") })).toBe(false);
  });

  it("verifies for a resource group of any script in either letter case, which it names reversibly", () => {
    const endpointId = ENDPOINT.replace("/rg/", "/grupo-ñandú/");
    const nonAscii = marks.mark({ ...written, endpointId });
    expect(marks.verifies(nonAscii, { ...written, endpointId: endpointId.toUpperCase() })).toBe(true);
    expect(marks.verifies(nonAscii, { ...written, endpointId: endpointId.replace("ñ", "n") })).toBe(false);
    expect(endpointIdMetadata(endpointId)).toMatch(/^[\x21-\x7e]+$/);
    expect(decodeURIComponent(endpointIdMetadata(endpointId))).toBe(nameKey(endpointId));
    expect(namesEndpoint(endpointIdMetadata(endpointId), endpointId.toUpperCase())).toBe(true);
    expect(namesEndpoint(endpointIdMetadata(endpointId), endpointId.replace("ñ", "n"))).toBe(false);
    // An ASCII id reads as writers before wrote it: lower-cased.
    expect(endpointIdMetadata(ENDPOINT.toUpperCase())).toBe(ENDPOINT.toLowerCase());
  });

  it("still verifies a mark written before marks named their container, as it was made then", () => {
    const endpointId = ENDPOINT.replace("/rg/", "/grupo-ñandú/");
    const v1Key = Buffer.from(
      hkdfSync("sha256", key, Buffer.alloc(0), "twins-events/dead-letter-mark/v1", 32),
    );
    const bodyHash = createHash("sha256").update(BODY).digest("hex");
    const v1 = {
      [MARK_METADATA]: createHmac("sha256", v1Key)
        .update(`${endpointId.toLowerCase()}\n${NAME}\n${bodyHash}`, "utf8")
        .digest("hex"),
      [MARK_KEY_METADATA]: createHash("sha256").update(v1Key).digest("hex").slice(0, 16),
      // As those writers named the endpoint: anything outside printable ASCII made "?".
      endpointid: endpointId.toLowerCase().replace(/[^\x20-\x7e]/g, "?"),
    };
    expect(marks.verifies(v1, { ...written, endpointId })).toBe(true);
    expect(marks.verifies(v1, { ...written, endpointId, body: `${BODY} ` })).toBe(false);
    expect(namesEndpoint(v1.endpointid, endpointId)).toBe(true);
  });

  it("does not verify a forged, truncated or missing mark, or one under a key it does not have", () => {
    const forged = { ...mark, [MARK_METADATA]: randomBytes(32).toString("hex") };
    const truncated = { ...mark, [MARK_METADATA]: mark[MARK_METADATA].slice(0, 10) };
    const { [MARK_METADATA]: _gone, ...missing } = mark;
    for (const metadata of [forged, truncated, missing, {}, undefined]) {
      expect(marks.verifies(metadata, written)).toBe(false);
    }
    const stranger = new DeadLetterMarks(randomBytes(32));
    expect(stranger.verifies(mark, written)).toBe(false);
    expect(stranger.mark(written)[MARK_KEY_METADATA]).not.toBe(mark[MARK_KEY_METADATA]);
  });

  it("still verifies what a previous key marked after a rotation, and names neither key", () => {
    const rotated = new DeadLetterMarks(randomBytes(32), [key]);
    expect(rotated.verifies(mark, written)).toBe(true);
    expect(JSON.stringify(mark)).not.toContain(key.toString("hex"));
    expect(mark[MARK_KEY_METADATA]).not.toBe(key.toString("hex").slice(0, 16));
  });
});

describe("the place of a dead-letter container", () => {
  it("is the account and container, whatever the SAS, port or letter case", () => {
    const place = deadLetterPlace("https://acct.blob.core.windows.net/dead?sv=1&sig=a");
    expect(place).toBe("acct.blob.core.windows.net/dead");
    expect(deadLetterPlace("https://ACCT.blob.core.windows.net/dead/?sv=2&sig=b")).toBe(place);
    expect(deadLetterPlace("http://127.0.0.1:10000/devstoreaccount1/dead?sig=c")).toBe(
      deadLetterPlace("http://127.0.0.1:20000/devstoreaccount1/dead?sig=d"),
    );
    expect(deadLetterPlace("https://acct.blob.core.windows.net/other?sig=a")).not.toBe(place);
    expect(deadLetterPlace("https://acct2.blob.core.windows.net/dead?sig=a")).not.toBe(place);
  });
});

describe("the endpoint cache and a wanted version", () => {
  const instance: InstancePath = { subscriptionId: "s", resourceGroupName: "rg", instanceName: "a" };
  function source() {
    const state = { version: '"v1"', reads: 0 };
    const service = {
      listForDelivery: async (): Promise<InstanceDelivery> => {
        state.reads++;
        const version = state.version;
        await new Promise((resolve) => setTimeout(resolve, 5));
        return {
          endpoints: [{ id: ENDPOINT, name: "ep", topic: "t", version, sendTo: [] }],
          routes: [],
        };
      },
    } as unknown as EndpointService;
    return { state, cache: new EndpointCache(service, 3_600_000) };
  }

  it("answers from the cache within the TTL when no version is wanted, or the cached one is", async () => {
    const { state, cache } = source();
    await cache.forInstance(instance);
    state.version = '"v2"';
    expect((await cache.forInstance(instance))[0]?.version).toBe('"v1"');
    expect((await cache.forInstance(instance, { endpointName: "EP", version: '"v1"' }))[0]?.version).toBe(
      '"v1"',
    );
    expect(state.reads).toBe(1);
  });

  it("reads again at once for a version it does not hold, once for many messages waiting together", async () => {
    const { state, cache } = source();
    await cache.forInstance(instance);
    state.version = '"v2"';
    const wanted = { endpointName: "ep", version: '"v2"' };
    const answers = await Promise.all(Array.from({ length: 8 }, () => cache.forInstance(instance, wanted)));
    expect(answers.map((answer) => answer[0]?.version)).toEqual(Array(8).fill('"v2"'));
    expect(state.reads).toBe(2);
    expect((await cache.forInstance(instance))[0]?.version).toBe('"v2"');
  });

  it("does not read again and again for a version the endpoint has changed since", async () => {
    const { state, cache } = source();
    await cache.forInstance(instance);
    state.version = '"v3"';
    const stale = { endpointName: "ep", version: '"v2"' };
    expect((await cache.forInstance(instance, stale))[0]?.version).toBe('"v3"');
    expect((await cache.forInstance(instance, stale))[0]?.version).toBe('"v3"');
    expect(state.reads).toBe(2);
  });
});
