import { TWINS_INSTANCE_PATH } from "../src/common/arm-path";
import type { CloudEvent } from "../src/events/cloud-event";
import { BENCH_FUNCTION_KEY, type BenchStack } from "./local-stack";

/** `count` twin-update events with ids `${prefix}-0` onwards. */
export function makeEvents(count: number, prefix: string): CloudEvent[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `${prefix}-${index}`,
    source: "/bench/twins",
    specversion: "1.0",
    type: "Microsoft.DigitalTwins.Twin.Update",
    time: new Date().toISOString(),
    data: {
      twinId: `twin-${index % 100}`,
      patch: [{ op: "replace", path: "/temperature", value: 20 + (index % 10) }],
    },
  }));
}

/** The twins instance a benchmark uses; a fresh name gives it a fresh endpoint cache entry. */
export function benchInstance(name: string): string {
  return TWINS_INSTANCE_PATH.id({
    subscriptionId: "00000000-0000-0000-0000-00000000bbbb",
    resourceGroupName: "bench",
    instanceName: name,
  });
}

/** Creates an endpoint of `instance` that delivers to `topic` on the stand-in. */
export async function createTopicEndpoint(
  stack: BenchStack,
  instance: string,
  name: string,
  topic: string,
): Promise<void> {
  const connection = stack.serviceBus.connectionString(topic);
  await create(stack, `${instance}/endpoints/${name}`, {
    queuePrimaryConnectionString: connection,
    queueSecondaryConnectionString: connection,
  });
}

/** Creates an event route of `instance`: the events `filter` lets through go to `endpointName`. */
export async function createEventRoute(
  stack: BenchStack,
  instance: string,
  name: string,
  endpointName: string,
  filter: string,
): Promise<void> {
  await create(stack, `${instance}/eventRoutes/${name}`, { endpointName, filter });
}

/** A PUT through the service's HTTP API that must create (201). */
async function create(stack: BenchStack, path: string, body: object): Promise<void> {
  const created = await fetch(`${stack.baseUrl}${path}`, {
    method: "PUT",
    headers: { "x-functions-key": BENCH_FUNCTION_KEY, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (created.status !== 201) throw new Error(`${path}: ${created.status} ${await created.text()}`);
}
