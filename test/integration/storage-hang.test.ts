import { randomUUID } from "node:crypto";
import { QueueServiceClient } from "@azure/storage-queue";
import { ServiceUnavailable } from "../../src/common/errors";
import type { AppConfig } from "../../src/config";
import type { CloudEvent } from "../../src/events/cloud-event";
import { EventPublisher } from "../../src/events/event-publisher";
import { createQueueServiceClient } from "../../src/store/queue-service";
import { queuedEventIds } from "../support/delivery-kit";
import { incompressibleText } from "../support/incompressible";
import { type PausableRelay, startPausableRelay } from "../support/pausable-relay";
import { sharedStandIns } from "../support/stand-ins-env";
import { timed } from "../support/timed";

// A storage account that stops answering (Azurite blocked on its event loop did; a real account
// can be slow): ingest must neither hang silently nor stay wedged. Over the wire, through a relay
// in front of the shared Azurite that keeps connections open and reads requests but answers nothing.

const direct = sharedStandIns().storageConnectionString;
const queuePort = Number(/QueueEndpoint=http:\/\/127\.0\.0\.1:(\d+)\//.exec(direct)?.[1]);
let relay: PausableRelay;

beforeAll(async () => {
  relay = await startPausableRelay(queuePort);
});
afterAll(async () => {
  relay.resume();
  await relay.close();
});

function event(id: string): CloudEvent {
  return { id, source: "/s", specversion: "1.0", type: "t", data: { id } };
}

/**
 * The service's own client (src/store/queue-service.ts) through the relay. The timings are those of
 * the fault a test injects: short where the relay is paused (a write then never ends by itself), and
 * the service's own where storage answers, so that a loaded machine's slow answer is no fault.
 */
function publisherThroughRelay(warnings: string[], { slowWriteMs = 300, writeTimeoutMs = 1500 } = {}) {
  const viaRelay = direct.replace(`127.0.0.1:${queuePort}/`, `127.0.0.1:${relay.port}/`);
  const service = createQueueServiceClient({ AzureWebJobsStorage: viaRelay } as AppConfig, {
    retryOptions: { maxTries: 3, tryTimeoutInMs: 10_000 },
  });
  const queue = service.getQueueClient(`hang-${randomUUID().slice(0, 8)}`);
  const timings = { warn: (message: string) => warnings.push(message), slowWriteMs, writeTimeoutMs };
  return { queue, publisher: new EventPublisher(queue, () => new Date(), 500, timings) };
}

/** The service's defaults (event-publisher.ts): a write is logged at 5 s and abandoned at 20 s. */
const SERVICE_TIMINGS = { slowWriteMs: 5000, writeTimeoutMs: 20_000 };

describe("ingest against a storage account that stops answering", () => {
  it("warns while the write waits, fails it with a 503 at its deadline, and writes again once storage answers", async () => {
    const warnings: string[] = [];
    const { queue, publisher } = publisherThroughRelay(warnings);
    await expect(publisher.publish("/i/hang", [event("before")])).resolves.toBe(1);
    // A loaded machine may take longer than the short warning time even for this write: only the
    // paused one's warning is asserted, by its events.
    const beforePause = warnings.length;

    // Silent until the write has ended and the relay has seen the client give it up: a write
    // without its deadline (the storage SDK alone waits as long as the connection stays open)
    // would hang, and the test fail, rather than be answered late.
    const givenUpBefore = relay.givenUp();
    relay.pause();
    const { ms: waitedMs, error: thrown } = await timed(
      publisher.publish("/i/hang", [event("during-1"), event("during-2")]),
    );
    await relay.untilGivenUp(givenUpBefore + 1);
    expect(thrown).toBeInstanceOf(ServiceUnavailable);
    expect(waitedMs).toBeGreaterThanOrEqual(1400);
    const paused = warnings.slice(beforePause).filter((warning) => warning.includes("2 event(s) of /i/hang"));
    expect(paused).toHaveLength(1);
    expect(paused[0]).toContain(queue.name);

    // Answering again: the instance is not wedged, and what it stores now is on the queue.
    relay.resume();
    await expect(publisher.publish("/i/hang", [event("after")])).resolves.toBe(1);
    const stored = await queuedEventIds(queue.name);
    // The abandoned write may still land when the service wakes (its 503 promised nothing either
    // way: the device's retry makes it at least once), but whole, never in part.
    expect(stored.filter((id) => !id.startsWith("during"))).toEqual(["before", "after"]);
    expect([[], ["during-1", "during-2"]]).toContainEqual(stored.filter((id) => id.startsWith("during")));
    await QueueServiceClient.fromConnectionString(direct).getQueueClient(queue.name).delete();
  });

  it("writes many messages in one write, each on the queue", async () => {
    const { queue, publisher } = publisherThroughRelay([], SERVICE_TIMINGS);
    // 16 events of ~40 KB that do not compress: one queue message each, all in one write.
    const big = Array.from({ length: 16 }, (_, i) => ({
      ...event(`big-${i}`),
      data: incompressibleText(40_000),
    }));
    await expect(publisher.publish("/i/big", big)).resolves.toBe(16);
    expect((await queue.getProperties()).approximateMessagesCount).toBe(16);
    await queue.delete();
  });

  it("a write that answers within the warning time logs nothing", async () => {
    const warnings: string[] = [];
    const { queue, publisher } = publisherThroughRelay(warnings, SERVICE_TIMINGS);
    for (let i = 0; i < 5; i++) await publisher.publish("/i/fast", [event(`fast-${i}`)]);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(warnings).toEqual([]);
    await queue.delete();
  });
});
