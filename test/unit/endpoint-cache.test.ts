import { EndpointCache } from "../../src/delivery/endpoint-cache";
import type { InstancePath } from "../../src/endpoints/endpoint-path";
import type { EndpointService } from "../../src/endpoints/endpoint-service";

// What the cache holds over time: an instance's endpoints (their secrets opened) stay only while it
// has traffic within the TTL, however many instances the host has delivered to.
const TTL_MS = 30_000;

function setUp() {
  let now = 0;
  const reads: string[] = [];
  const service = {
    listForDelivery: async (path: InstancePath) => {
      reads.push(path.instanceName);
      return { endpoints: [], routes: [] };
    },
  } as unknown as EndpointService;
  const cache = new EndpointCache(service, TTL_MS, () => now);
  const instance = (name: string): InstancePath => ({
    subscriptionId: "00000000-0000-0000-0000-000000000001",
    resourceGroupName: "rg",
    instanceName: name,
  });
  return { cache, reads, instance, advance: (ms: number) => (now += ms) };
}

it("reads an instance once per TTL, however many messages it has", async () => {
  const { cache, reads, instance, advance } = setUp();
  for (let i = 0; i < 5; i++) await cache.forInstance(instance("busy"));
  advance(TTL_MS - 1);
  await cache.forInstance(instance("busy"));
  advance(1);
  await cache.forInstance(instance("busy"));
  expect(reads).toEqual(["busy", "busy"]);
});

it("drops the instances that had no traffic within the TTL, and keeps those that did", async () => {
  const { cache, instance, advance } = setUp();
  for (let i = 0; i < 1000; i++) await cache.forInstance(instance(`once-${i}`));
  expect(cache.size).toBe(1000);
  advance(TTL_MS / 2);
  await cache.forInstance(instance("steady"));
  advance(TTL_MS / 2);
  // The thousand are past their TTL; "steady" is not, and the next call sees it held.
  await cache.forInstance(instance("another"));
  expect(cache.size).toBe(2);
});

it("keeps its entries in the order of expiry when an instance is read again", async () => {
  const { cache, reads, instance, advance } = setUp();
  await cache.forInstance(instance("a"));
  advance(10_000);
  await cache.forInstance(instance("b"));
  advance(TTL_MS - 10_000);
  await cache.forInstance(instance("a")); // expired: read again, now the newest
  advance(10_000);
  await cache.forInstance(instance("c")); // b expires here; a must survive although first in
  expect(cache.size).toBe(2);
  await cache.forInstance(instance("a"));
  expect(reads).toEqual(["a", "b", "a", "c"]);
});

describe("event routes, read with the endpoints", () => {
  const instance: InstancePath = { subscriptionId: "s", resourceGroupName: "rg", instanceName: "routed" };
  const event = (data: unknown, type = "Twin.Update") => ({
    id: "e",
    source: "/s",
    specversion: "1.0" as const,
    type,
    data,
  });
  function routedSource(routes: { name: string; endpointName: string; filter: string }[]) {
    let now = 0;
    const warnings: string[] = [];
    const state = { routes, reads: 0 };
    const service = {
      listForDelivery: async () => {
        state.reads++;
        const endpoint = (name: string) => ({ id: name, name, topic: "t", sendTo: [] });
        return { endpoints: [endpoint("Hot"), endpoint("all")], routes: state.routes };
      },
    } as unknown as EndpointService;
    const cache = new EndpointCache(
      service,
      TTL_MS,
      () => now,
      (line) => warnings.push(line),
    );
    return { cache, state, warnings, advance: (ms: number) => (now += ms) };
  }

  it("gives each endpoint that routes name the test of any of them, and none to the others", async () => {
    const { cache } = routedSource([
      { name: "r1", endpointName: "hot", filter: "$body.t > 30" },
      { name: "r2", endpointName: "HOT", filter: "type = 'Twin.Create'" },
    ]);
    const [hot, all] = await cache.forInstance(instance);
    expect(all?.accepts).toBeUndefined();
    expect(hot?.accepts?.(event({ t: 31 }))).toBe(true);
    expect(hot?.accepts?.(event({ t: 1 }, "Twin.Create"))).toBe(true);
    expect(hot?.accepts?.(event({ t: 1 }))).toBe(false);
  });

  it("compiles a filter once across reloads, a changed one afresh, and forgets an instance when told", async () => {
    const routes = [{ name: "r1", endpointName: "hot", filter: "$body.t > 30" }];
    const { cache, state, advance } = routedSource(routes);
    const first = (await cache.forInstance(instance))[0]?.accepts;
    advance(TTL_MS);
    const reloaded = (await cache.forInstance(instance))[0]?.accepts;
    expect(state.reads).toBe(2);
    expect(reloaded).toBe(first);
    state.routes = [{ name: "r1", endpointName: "hot", filter: "$body.t < 30" }];
    expect((await cache.forInstance(instance))[0]?.accepts).toBe(first);
    cache.forget(instance);
    const changed = (await cache.forInstance(instance))[0]?.accepts;
    expect(state.reads).toBe(3);
    expect(changed).not.toBe(first);
    expect(changed?.(event({ t: 1 }))).toBe(true);
  });

  it("lets nothing through a stored filter that does not parse, and says so", async () => {
    const { cache, warnings } = routedSource([{ name: "broken", endpointName: "hot", filter: "$body.t >" }]);
    const [hot] = await cache.forInstance(instance);
    expect(hot?.accepts?.(event({ t: 100 }))).toBe(false);
    expect(warnings).toEqual([
      expect.stringMatching(/^event route 'broken': its stored filter does not parse/),
    ]);
  });
});
