import type { BlobClient, BlobItem, ContainerClient } from "@azure/storage-blob";
import { deadLetterWrittenAt, isDeadLetterSelected, REASON_METADATA } from "../common/dead-letter-selection";
import { describeError } from "../common/describe-error";
import { ServiceUnavailable } from "../common/errors";
import {
  type DeadLetterTarget,
  type DeliveryEndpoint,
  deadLetterField,
  deadLetterUrl,
} from "../endpoints/delivery-endpoint";
import { missingPermissions, REDELIVERY_PERMISSIONS, sasExpired } from "../endpoints/sas-token";
import { type CloudEvent, cloudEventSchema } from "../events/cloud-event";
import { storageDeadline } from "../store/storage-deadline";
import {
  claim,
  claimedElsewhere,
  lostRace,
  type Metadata,
  markRedelivered,
  REDELIVERED_METADATA,
  release,
} from "./dead-letter-claims";
import { deadLetterContainer, deadLetterPlace } from "./dead-letter-container";
import { type DeadLetterMarks, MARK_METADATA } from "./dead-letter-mark";
import { deadLetterStoreFault, type StoreStep, storageCode } from "./dead-letter-store-faults";
import { type DeadLetterReason, ENDPOINT_METADATA, namesEndpoint } from "./dead-letter-writer";
import { DeadLettersUnavailable } from "./dead-letters-unavailable";
import { type DeliveryLogger, logLine, silentLogger } from "./delivery-log";
import type { DeliveryQueues } from "./delivery-queues";

export { REDELIVERED_METADATA } from "./dead-letter-claims";
export { DeadLettersUnavailable } from "./dead-letters-unavailable";

export interface RedeliveryWindow {
  /** Dead letters written at or after this time (inclusive). */
  from?: Date;
  /** Dead letters written at or before this time (inclusive). */
  to?: Date;
  /** Only dead letters of this `deadletterreason` (compared exactly); the others are left alone, uncounted. */
  reason?: DeadLetterReason["reason"];
  /** Redeliver blobs marked `redelivered` too. */
  force?: boolean;
}

export interface RedeliveryCounts {
  /** Events put back on the twin-events queue for the endpoint. */
  requeued: number;
  /**
   * Blobs left alone: marked `redelivered` (and `force` not given), taken by another call running
   * at once, or not a dead letter the service wrote for this endpoint (each of those is logged).
   */
  skipped: number;
  /** Blobs that could not be read, held no CloudEvent, or could not be queued. */
  failed: number;
}

type Outcome = keyof RedeliveryCounts;

/** How many blobs are worked on at once. */
const PARALLEL = 8;

/**
 * How long one call may begin new work (a page of the listing, a dead letter): what it began
 * ends within its storage calls' deadlines, so a call answers within about two minutes however
 * long the container or however slow the store, rather than 20 s per storage call per batch.
 */
export const CALL_DEADLINE_MS = 60_000;

/** How redelivery uses the dead-letter store; the defaults are the service's. */
export interface RedeliveryStorageOptions {
  /**
   * How long any one of its storage calls may take: each page of the listing, each of a
   * download's two requests, each claim (storage-deadline.ts; STORAGE_CALL_DEADLINE_MS unless
   * given). A mark is tried for twice as long (dead-letter-claims.ts).
   */
  deadlineMs?: number;
  /** Blobs asked for per page of the listing; unset, storage's own (5,000). */
  pageSize?: number;
  /** How long a call may begin new work; CALL_DEADLINE_MS unless given. */
  callDeadlineMs?: number;
}

/**
 * The blobs under `prefix`, a page at a time, each page asked for with a deadline of its own: one
 * deadline over the whole listing would cut off a container that is only long, none would let a
 * store that stops answering hold the redelivery (and its caller) for as long as the connection
 * stays open.
 */
async function* listWithDeadlines(
  container: ContainerClient,
  prefix: string,
  storage: RedeliveryStorageOptions,
): AsyncGenerator<BlobItem> {
  let continuationToken: string | undefined;
  do {
    const pages = container
      .listBlobsFlat({ prefix, includeMetadata: true, abortSignal: storageDeadline(storage.deadlineMs) })
      .byPage({
        continuationToken,
        ...(storage.pageSize !== undefined && { maxPageSize: storage.pageSize }),
      });
    const page = await pages.next();
    if (page.done === true) return;
    yield* page.value.segment.blobItems;
    continuationToken = page.value.continuationToken;
  } while (continuationToken);
}

/**
 * A blob's content as it was listed (`etag`), in two requests, each with a deadline of its own:
 * its length, then its bytes (in one request: one block the blob's size). Asked for without a
 * length, downloadToBuffer makes both requests under the one signal it is given, so a store
 * answering each in a bit more than half a deadline could never be read from.
 */
async function download(client: BlobClient, etag: string, deadlineMs?: number): Promise<Buffer> {
  const conditions = { ifMatch: etag };
  const { contentLength = 0 } = await client.getProperties({
    conditions,
    abortSignal: storageDeadline(deadlineMs),
  });
  if (contentLength === 0) return Buffer.alloc(0);
  return client.downloadToBuffer(0, contentLength, {
    blockSize: contentLength,
    conditions,
    abortSignal: storageDeadline(deadlineMs),
  });
}

/** Whether the call is about this blob at all: of the reason asked for, written in the window. */
function selected(blob: BlobItem, window: RedeliveryWindow): boolean {
  const listed = {
    name: blob.name,
    ...(blob.metadata && { metadata: blob.metadata }),
    ...(blob.properties.createdOn && { createdOn: blob.properties.createdOn }),
  };
  return isDeadLetterSelected(blob.metadata?.[REASON_METADATA], deadLetterWrittenAt(listed), window);
}

/** One run: the endpoint, where to log, the counts so far, and why it stops early, if it does. */
interface Run {
  twinsInstanceId: string;
  endpoint: DeliveryEndpoint;
  container: ContainerClient;
  /** deadLetterPlace of the endpoint's SAS URL: the container its marks must name. */
  place: string;
  logger: DeliveryLogger;
  counts: RedeliveryCounts;
  /** The first fault of the store (dead-letter-store-faults.ts): no dead letter is begun after it. */
  fault?: { error: unknown; step: StoreStep };
  /** Requeued dead letters whose mark did not land (counted requeued too). */
  unmarked: number;
}

/**
 * Re-queues an endpoint's dead letters (blobs under `{endpointName}/` in its dead-letter container,
 * read through its SAS URL) as retry messages for that endpoint alone, attempts reset to 0, the TTL
 * counted from now, and the endpoint's current version, so delivery sends them with the settings
 * the store holds now, not what a cache remembers (delivery-message.ts). Only blobs that carry the
 * service's mark for this endpoint, container, name and body are requeued (dead-letter-mark.ts);
 * each is claimed first, so concurrent calls split the work (dead-letter-claims.ts), then marked
 * `redelivered`; nothing is deleted. Marked blobs are skipped unless `force`.
 *
 * The store failing or not answering any step (listing, reading, claiming, marking) ends the
 * call as a 503, refusing one (403, a missing container) as a 409, after the dead letters in hand
 * are finished: a dead letter's fault is the store's, and the next one would meet it too. A call
 * begins no work after its deadline (CALL_DEADLINE_MS) and then answers 503 too, saying how far
 * it got; what it requeued is marked, so the next call goes on from there.
 */
export class DeadLetterRedelivery {
  constructor(
    private readonly queues: Pick<DeliveryQueues, "scheduleRetry">,
    private readonly marks: DeadLetterMarks,
    private readonly now: () => Date = () => new Date(),
    private readonly storage: RedeliveryStorageOptions = {},
  ) {}

  async redeliver(
    twinsInstanceId: string,
    endpoint: DeliveryEndpoint,
    window: RedeliveryWindow,
    logger: DeliveryLogger = silentLogger,
  ): Promise<RedeliveryCounts> {
    const target = this.usableTarget(endpoint);
    const container = deadLetterContainer(target, { maxTries: 2, tryTimeoutInMs: 10_000 });
    const run: Run = {
      twinsInstanceId,
      endpoint,
      container,
      place: deadLetterPlace(deadLetterUrl(target)),
      logger,
      counts: { requeued: 0, skipped: 0, failed: 0 },
      unmarked: 0,
    };
    // Real time, not `now`, which stands for the clock of the claims and marks.
    const beginBy = Date.now() + (this.storage.callDeadlineMs ?? CALL_DEADLINE_MS);
    let batch: BlobItem[] = [];
    const flush = async () => {
      const outcomes = await Promise.all(batch.map((blob) => this.redeliverBlob(run, blob, window)));
      for (const outcome of outcomes) run.counts[outcome]++;
      batch = [];
    };
    let outOfTime = false;
    try {
      for await (const blob of listWithDeadlines(container, `${endpoint.name}/`, this.storage)) {
        if (!selected(blob, window)) continue;
        if (Date.now() >= beginBy) {
          outOfTime = true;
          break;
        }
        batch.push(blob);
        if (batch.length >= PARALLEL) await flush();
        if (run.fault !== undefined) break;
      }
    } catch (error) {
      run.fault ??= { error, step: "listed" };
    }
    if (run.fault === undefined && !outOfTime) await flush();
    if (run.fault !== undefined) {
      throw deadLetterStoreFault(run.fault.error, run.fault.step, progress(run), target);
    }
    if (outOfTime) {
      throw new ServiceUnavailable(
        `The redelivery reached its deadline before the end of the dead letters; repeat it to go on. ${progress(run)}`,
        1,
      );
    }
    return run.counts;
  }

  /**
   * The dead-letter location, when redelivery can use it; else the 409 that says why not. A SAS
   * token's permissions and expiry are read here; an identity's roles show only in the store's
   * answers (deadLetterStoreFault names the role then).
   */
  private usableTarget(endpoint: DeliveryEndpoint): DeadLetterTarget {
    if (endpoint.sendTo === undefined) {
      throw new DeadLettersUnavailable(
        `The endpoint cannot be used by this deployment (${endpoint.unusable.reason}); its dead letters cannot be read.`,
      );
    }
    const target = endpoint.deadLetter;
    if (target === undefined) {
      const field = deadLetterField(endpoint);
      throw new DeadLettersUnavailable(
        `The endpoint has no ${field} (or one this deployment does not admit): there are no dead letters to redeliver.`,
        field,
      );
    }
    if (!("sasUrl" in target)) return target;
    const { sasUrl } = target;
    const missing = missingPermissions(sasUrl, REDELIVERY_PERMISSIONS);
    if (missing.length > 0) {
      throw new DeadLettersUnavailable(
        `The deadLetterStorageSecret's SAS token lacks ${missing.join(" and ")} permission, which redelivery needs (sp=rwl besides the c dead-lettering needs: sp=rcwl).`,
        "deadLetterStorageSecret",
      );
    }
    if (sasExpired(new URL(sasUrl).searchParams, this.now())) {
      throw new DeadLettersUnavailable(
        "The deadLetterStorageSecret's SAS token has expired (se=): PATCH the endpoint with a new one.",
        "deadLetterStorageSecret",
      );
    }
    return target;
  }

  private async redeliverBlob(run: Run, blob: BlobItem, window: RedeliveryWindow): Promise<Outcome> {
    const metadata: Metadata = blob.metadata ?? {};
    const foreign = this.foreignBy(run, metadata);
    if (foreign !== undefined) return this.skipForeign(run, blob.name, foreign);
    if (metadata[REDELIVERED_METADATA] !== undefined && !window.force) return "skipped";
    if (claimedElsewhere(metadata, this.now())) return "skipped";
    const client = run.container.getBlobClient(blob.name);
    const etag = blob.properties.etag as string;
    let body: Buffer;
    try {
      body = await download(client, etag, this.storage.deadlineMs);
    } catch (error) {
      // Changed or deleted since it was listed: another call's, or the owner's, to have.
      if (lostRace(error) || storageCode(error) === "BlobNotFound") return "skipped";
      return this.storeFault(run, client.name, "read", error);
    }
    const deadLetter = { endpointId: run.endpoint.id, place: run.place, blobName: blob.name, body };
    if (!this.marks.verifies(metadata, deadLetter)) {
      return this.skipForeign(
        run,
        blob.name,
        "its service mark does not match this container, its name and its content: a copy, or not written by the service",
      );
    }
    let event: CloudEvent;
    try {
      const parsed = cloudEventSchema.safeParse(JSON.parse(body.toString("utf8")));
      if (!parsed.success) throw new Error("the blob holds no valid CloudEvent");
      event = parsed.data;
    } catch (error) {
      return this.fail(run, blob.name, "was not read", error);
    }
    return this.requeue(run, client, metadata, etag, event);
  }

  /** Why the blob is not this endpoint's dead letter, from its metadata alone; undefined when it may be. */
  private foreignBy(run: Run, metadata: Metadata): string | undefined {
    if (metadata[MARK_METADATA] === undefined)
      return "it carries no service mark: the service did not write it";
    const owner = metadata[ENDPOINT_METADATA];
    if (!namesEndpoint(owner, run.endpoint.id))
      return `it was written for another endpoint (${owner ?? "not named"})`;
    return undefined;
  }

  private async requeue(
    run: Run,
    client: ReturnType<ContainerClient["getBlobClient"]>,
    metadata: Metadata,
    etag: string,
    event: CloudEvent,
  ): Promise<Outcome> {
    let claimEtag: string | undefined;
    try {
      claimEtag = await claim(client, metadata, etag, this.now(), this.storage.deadlineMs);
    } catch (error) {
      return this.storeFault(run, client.name, "claimed", error);
    }
    if (claimEtag === undefined) return "skipped";
    const { twinsInstanceId, endpoint } = run;
    try {
      await this.queues.scheduleRetry(
        {
          twinsInstanceId,
          receivedAt: this.now().toISOString(),
          retry: {
            endpointName: endpoint.name,
            attempt: 0,
            lastError: `redelivered from dead letter ${client.name}`,
            ...(endpoint.version !== undefined && { endpointVersion: endpoint.version }),
          },
        },
        [event],
        0,
      );
    } catch (error) {
      // The service's own queue failed, not the store: this dead letter alone is counted failed.
      await release(client, metadata, claimEtag, this.storage.deadlineMs).catch(() => undefined);
      return this.fail(run, client.name, "was not requeued", error);
    }
    try {
      // Tried on for a while (dead-letter-claims.ts): a mark lost would let the claim lapse and a
      // later call requeue the event again.
      await markRedelivered(client, metadata, claimEtag, this.now(), this.storage.deadlineMs);
    } catch (error) {
      // Queued already, so counted as requeued; its claim lapses after CLAIM_SECONDS.
      run.unmarked++;
      this.storeFault(run, client.name, "marked", error, "was requeued but not marked");
    }
    return "requeued";
  }

  private skipForeign(run: Run, blobName: string, reason: string): Outcome {
    run.logger.warn(
      logLine("dead-letter redelivery: blob skipped:", {
        instance: run.twinsInstanceId,
        endpoint: run.endpoint.name,
        blob: blobName,
        reason,
      }),
    );
    return "skipped";
  }

  /**
   * A step the store failed or refused: the blob is counted failed (unless it was requeued), and the
   * run stops beginning others, to answer with the store's fault (the first one).
   */
  private storeFault(
    run: Run,
    blobName: string,
    step: StoreStep,
    error: unknown,
    what = `was not ${step}`,
  ): Outcome {
    run.fault ??= { error, step };
    return this.fail(run, blobName, what, error);
  }

  private fail(run: Run, blobName: string, what: string, error: unknown): Outcome {
    run.logger.warn(
      logLine(`dead-letter redelivery: blob ${what}:`, {
        instance: run.twinsInstanceId,
        endpoint: run.endpoint.name,
        blob: blobName,
        error: describeError(error),
      }),
    );
    return "failed";
  }
}

/** What a call that stopped early did, for its answer. */
function progress({ counts, unmarked }: Run): string {
  const marked =
    unmarked === 0
      ? "each marked redelivered, so the next call skips them"
      : `${unmarked} of them were not confirmed marked redelivered: those whose mark did not land after all are requeued again by a call after their claims lapse, in 5 minutes`;
  return `Before that it requeued ${counts.requeued} dead letters (${marked}), skipped ${counts.skipped} and failed ${counts.failed}.`;
}
