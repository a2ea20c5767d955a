import { AnonymousCredential, type BlobItem, ContainerClient } from "@azure/storage-blob";
import { DomainError } from "../common/errors";
import type { DeliveryEndpoint } from "../endpoints/endpoint-service";
import { type CloudEvent, cloudEventSchema } from "../events/cloud-event";
import type { DeliveryQueues } from "./delivery-queues";

/** The blob metadata that marks a dead letter as redelivered: the ISO time it was re-queued. */
export const REDELIVERED_METADATA = "redelivered";

/** The endpoint cannot have its dead letters redelivered: no usable dead-letter secret (409). */
export class DeadLettersUnavailable extends DomainError {
  readonly status = 409;
  readonly code = "DeadLettersUnavailable";
}

export interface RedeliveryWindow {
  /** Dead letters written at or after this time (inclusive). */
  from?: Date;
  /** Dead letters written at or before this time (inclusive). */
  to?: Date;
  /** Redeliver blobs marked `redelivered` too. */
  force?: boolean;
}

export interface RedeliveryCounts {
  /** Events put back on the twin-events queue for the endpoint. */
  requeued: number;
  /** Blobs in the window already marked `redelivered` (and `force` not given). */
  skipped: number;
  /** Blobs that could not be read, held no CloudEvent, or could not be queued. */
  failed: number;
}

/** How many blobs are worked on at once. */
const PARALLEL = 8;

/** When a dead letter was written: the blob's creation time, which setting metadata leaves alone. */
function writtenAt(blob: BlobItem): Date | undefined {
  if (blob.properties.createdOn) return blob.properties.createdOn;
  // Else the hour folder of its name: `{endpoint}/{yyyy}/{MM}/{dd}/{HH}/…`.
  const hour = /\/(\d{4})\/(\d{2})\/(\d{2})\/(\d{2})\/[^/]+$/.exec(blob.name);
  return hour ? new Date(`${hour[1]}-${hour[2]}-${hour[3]}T${hour[4]}:00:00Z`) : undefined;
}

function inWindow(at: Date | undefined, window: RedeliveryWindow): boolean {
  if (at === undefined) return window.from === undefined && window.to === undefined;
  return (
    (window.from === undefined || at.getTime() >= window.from.getTime()) &&
    (window.to === undefined || at.getTime() <= window.to.getTime())
  );
}

/**
 * Re-queues an endpoint's dead letters (blobs under `{endpointName}/` in its dead-letter container,
 * read through its SAS URL) as retry messages for that endpoint alone, attempts reset to 0 and the
 * TTL counted from now. Each requeued blob is then marked with `redelivered=<ISO time>` metadata
 * (merged into what it has: the dead-letter reason stays); nothing is deleted. Marked blobs are
 * skipped unless `force`. The mark follows the enqueue, so a run interrupted between the two
 * requeues that event again when repeated: redelivery is at least once, like delivery itself.
 */
export class DeadLetterRedelivery {
  constructor(
    private readonly queues: Pick<DeliveryQueues, "scheduleRetry">,
    private readonly warn: (message: string) => void = (message) => console.warn(message),
    private readonly now: () => Date = () => new Date(),
  ) {}

  async redeliver(
    twinsInstanceId: string,
    endpoint: DeliveryEndpoint,
    window: RedeliveryWindow,
  ): Promise<RedeliveryCounts> {
    if (endpoint.secrets === undefined) {
      throw new DeadLettersUnavailable(
        `The endpoint's secrets cannot be opened by this deployment (${endpoint.secretsUnreadable}); its dead letters cannot be read.`,
      );
    }
    const sasUrl = endpoint.secrets.deadLetterStorageSecret;
    if (sasUrl === undefined) {
      throw new DeadLettersUnavailable(
        "The endpoint has no deadLetterStorageSecret (or one this deployment does not admit): there are no dead letters to redeliver.",
        "deadLetterStorageSecret",
      );
    }
    const container = new ContainerClient(sasUrl, new AnonymousCredential(), {
      retryOptions: { maxTries: 4, retryDelayInMs: 500, tryTimeoutInMs: 15_000 },
    });
    const counts: RedeliveryCounts = { requeued: 0, skipped: 0, failed: 0 };
    let batch: BlobItem[] = [];
    const flush = async () => {
      const outcomes = await Promise.all(
        batch.map((blob) => this.redeliverBlob(container, twinsInstanceId, endpoint.name, blob)),
      );
      for (const outcome of outcomes) counts[outcome]++;
      batch = [];
    };
    for await (const blob of container.listBlobsFlat({
      prefix: `${endpoint.name}/`,
      includeMetadata: true,
    })) {
      if (!inWindow(writtenAt(blob), window)) continue;
      if (blob.metadata?.[REDELIVERED_METADATA] !== undefined && !window.force) {
        counts.skipped++;
        continue;
      }
      batch.push(blob);
      if (batch.length >= PARALLEL) await flush();
    }
    await flush();
    return counts;
  }

  private async redeliverBlob(
    container: ContainerClient,
    twinsInstanceId: string,
    endpointName: string,
    blob: BlobItem,
  ): Promise<keyof RedeliveryCounts> {
    const client = container.getBlobClient(blob.name);
    let event: CloudEvent;
    try {
      const parsed = cloudEventSchema.safeParse(
        JSON.parse((await client.downloadToBuffer()).toString("utf8")),
      );
      if (!parsed.success) throw new Error("the blob holds no valid CloudEvent");
      event = parsed.data;
      const at = this.now().toISOString();
      await this.queues.scheduleRetry(
        {
          twinsInstanceId,
          receivedAt: at,
          retry: { endpointName, attempt: 0, lastError: `redelivered from dead letter ${blob.name}` },
        },
        [event],
        0,
      );
    } catch (error) {
      this.warn(`dead-letter redelivery: ${blob.name} was not requeued: ${message(error)}`);
      return "failed";
    }
    try {
      // setMetadata replaces the whole set: keep what the dead-letter writer wrote.
      await client.setMetadata({ ...blob.metadata, [REDELIVERED_METADATA]: this.now().toISOString() });
    } catch (error) {
      // Queued already, so counted as requeued; unmarked, a repeat run requeues it again.
      this.warn(`dead-letter redelivery: ${blob.name} was requeued but not marked: ${message(error)}`);
    }
    return "requeued";
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
