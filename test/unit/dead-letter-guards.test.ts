import { randomBytes } from "node:crypto";
import { DeadLetterMarks, MARK_KEY_METADATA, MARK_METADATA } from "../../src/delivery/dead-letter-mark";
import { EndpointCache } from "../../src/delivery/endpoint-cache";
import type { InstancePath } from "../../src/endpoints/endpoint-path";
import type { DeliveryEndpoint, EndpointService } from "../../src/endpoints/endpoint-service";

// The service's mark on its dead letters (what a planted or copied blob cannot carry), and the
// endpoint cache answering a message owed under a version it does not hold.
const ENDPOINT =
  "/subscriptions/s/resourceGroups/rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/a/endpoints/ep";
const NAME = "ep/2026/11/22/08/evt-1.json";
const BODY = JSON.stringify({ id: "evt-1", source: "/s", specversion: "1.0", type: "t" });

describe("the dead-letter mark", () => {
  const key = randomBytes(32);
  const marks = new DeadLetterMarks(key);
  const mark = marks.mark(ENDPOINT, NAME, BODY);

  it("verifies for the endpoint (in any letter case), name and body it was made for", () => {
    expect(marks.verifies(mark, ENDPOINT, NAME, Buffer.from(BODY))).toBe(true);
    expect(marks.verifies(mark, ENDPOINT.toUpperCase(), NAME, BODY)).toBe(true);
  });

  it.each([
    ["another instance's endpoint of that name", ENDPOINT.replace("/a/", "/b/"), NAME, BODY],
    ["another name (a copy)", ENDPOINT, "ep/2026/11/22/08/evt-1.1.json", BODY],
    ["another body", ENDPOINT, NAME, BODY.replace("evt-1", "evt-2")],
  ])("does not verify for %s", (_label, endpoint, name, body) => {
    expect(marks.verifies(mark, endpoint, name, body)).toBe(false);
  });

  it("does not verify a forged, truncated or missing mark, or one under a key it does not have", () => {
    const forged = { ...mark, [MARK_METADATA]: randomBytes(32).toString("hex") };
    const truncated = { ...mark, [MARK_METADATA]: mark[MARK_METADATA].slice(0, 10) };
    const { [MARK_METADATA]: _gone, ...missing } = mark;
    for (const metadata of [forged, truncated, missing, {}, undefined]) {
      expect(marks.verifies(metadata, ENDPOINT, NAME, BODY)).toBe(false);
    }
    const stranger = new DeadLetterMarks(randomBytes(32));
    expect(stranger.verifies(mark, ENDPOINT, NAME, BODY)).toBe(false);
    expect(stranger.mark(ENDPOINT, NAME, BODY)[MARK_KEY_METADATA]).not.toBe(mark[MARK_KEY_METADATA]);
  });

  it("still verifies what a previous key marked after a rotation, and names neither key", () => {
    const rotated = new DeadLetterMarks(randomBytes(32), [key]);
    expect(rotated.verifies(mark, ENDPOINT, NAME, BODY)).toBe(true);
    expect(JSON.stringify(mark)).not.toContain(key.toString("hex"));
    expect(mark[MARK_KEY_METADATA]).not.toBe(key.toString("hex").slice(0, 16));
  });
});

describe("the endpoint cache and a wanted version", () => {
  const instance: InstancePath = { subscriptionId: "s", resourceGroupName: "rg", instanceName: "a" };
  function source() {
    const state = { version: '"v1"', reads: 0 };
    const service = {
      listForDelivery: async (): Promise<DeliveryEndpoint[]> => {
        state.reads++;
        const version = state.version;
        await new Promise((resolve) => setTimeout(resolve, 5));
        return [{ id: ENDPOINT, name: "ep", topic: "t", version, secrets: {} as never }];
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
