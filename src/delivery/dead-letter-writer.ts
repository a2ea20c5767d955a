import type { BlockBlobClient, ContainerClient } from "@azure/storage-blob";
import {
  type DEAD_LETTER_REASONS,
  DEAD_LETTERED_AT_METADATA,
  REASON_METADATA,
} from "../common/dead-letter-selection";
import { nameKey } from "../common/name-key";
import { type DeadLetterTarget, type DeliveryEndpoint, deadLetterUrl } from "../endpoints/delivery-endpoint";
import type { CloudEvent } from "../events/cloud-event";
import { STORAGE_CALL_DEADLINE_MS, storageDeadline } from "../store/storage-deadline";
import { storageStatus } from "../store/storage-errors";
import { deadLetterContainer, deadLetterPlace, deadLetterTargetKey } from "./dead-letter-container";
import type { DeadLetterMarks } from "./dead-letter-mark";
import { deadLetterBlobName, MAX_NAMES_PER_ID } from "./dead-letter-name";

export interface DeadLetterReason {
  /** MessageRefused: the Service Bus client refused to make a message of the event (e.g. an id over 128 characters). */
  reason: (typeof DEAD_LETTER_REASONS)[number];
  attempts: number;
  lastError: string;
}

/** Where a dead-lettered event went: the container (from the SAS URL's path) and the blob name. */
export interface DeadLetterPlace {
  container: string;
  blobName: string;
}

/** Blob metadata travels as HTTP headers: printable ASCII only. */
function headerSafe(value: string): string {
  return value.replace(/[^\x20-\x7e]/g, "?").slice(0, 1024);
}

/** The write was refused because the name holds a blob already (409 BlobAlreadyExists, or 412). */
function isNameTaken(error: unknown): boolean {
  const status = storageStatus(error);
  return status === 409 || status === 412;
}

/** The container's name, the last segment of the URL's path; never a SAS URL's query, which holds the signature. */
function containerName(url: string): string {
  return decodeURIComponent(new URL(url).pathname.split("/").filter(Boolean).pop() ?? "");
}

/**
 * Metadata naming, in clear, the endpoint (instance and name) a dead letter is for: its name key
 * (name-key.ts: ASCII lower-cased, as ids always were), with `%` and every character outside
 * printable ASCII percent-encoded (UTF-8), as metadata travel as HTTP headers. Reversible, so a
 * resource group named with letters of any script is no longer written as `?`s that match no
 * endpoint; an ASCII id reads as it always did.
 */
export const ENDPOINT_METADATA = "endpointid";

export function endpointIdMetadata(endpointId: string): string {
  return nameKey(endpointId).replace(/[^\x21-\x24\x26-\x7e]/gu, (character) =>
    [...Buffer.from(character, "utf8")]
      .map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`)
      .join(""),
  );
}

/**
 * Whether a dead letter's ENDPOINT_METADATA names this endpoint: in the form above, or as writers
 * before it wrote it (lower-cased, anything outside printable ASCII made `?`), so their dead
 * letters are still found; the mark, which they carry over the id itself, tells them apart.
 */
export function namesEndpoint(value: string | undefined, endpointId: string): boolean {
  return value === endpointIdMetadata(endpointId) || value === headerSafe(endpointId.toLowerCase());
}

/**
 * Writes undeliverable events, as the original CloudEvent JSON, into the endpoint's dead-letter
 * container through its SAS URL (names: see dead-letter-name.ts), with the service's mark
 * (dead-letter-mark.ts). A write never replaces a blob: each upload is conditional on the name
 * being free (If-None-Match: *), and a taken name moves the event on to `{eventId}.1.json`,
 * `.2.json`, … unless the blob there is this very event's dead letter for this endpoint (its mark
 * verifies: a retry of a write that landed before a crash, or the event dead-lettered again after
 * a redelivery). That blob's record is then brought up to date (reason, attempts, last error,
 * time) and its redelivery marks cleared, so a plain redelivery finds it again. One container
 * client per SAS URL per process. Each call has a deadline (storage-deadline.ts): a write the
 * account does not answer fails the dead-lettering, which then goes the way of any failed write.
 */
export class DeadLetterWriter {
  private readonly containers = new Map<string, ContainerClient>();

  constructor(
    private readonly marks: DeadLetterMarks,
    private readonly deadlineMs: number = STORAGE_CALL_DEADLINE_MS,
  ) {}

  async write(
    endpoint: DeliveryEndpoint,
    event: CloudEvent,
    why: DeadLetterReason,
    at: Date,
  ): Promise<DeadLetterPlace> {
    const target = endpoint.deadLetter;
    if (target === undefined) throw new Error("the endpoint has no dead-letter location");
    const url = deadLetterUrl(target);
    const body = JSON.stringify(event);
    const container = this.container(target);
    const place = deadLetterPlace(url);
    for (let copy = 0; copy < MAX_NAMES_PER_ID; copy++) {
      const blobName = deadLetterBlobName(endpoint.name, event.id, at, copy);
      const blob = container.getBlockBlobClient(blobName);
      const metadata = {
        ...deadLetterRecord(why, at),
        [ENDPOINT_METADATA]: endpointIdMetadata(endpoint.id),
        ...this.marks.mark({ endpointId: endpoint.id, place, blobName, body }),
      };
      const created = await create(blob, body, metadata, this.deadlineMs);
      if (created || (await this.renewed(endpoint, place, blob, body, metadata))) {
        return { container: containerName(url), blobName };
      }
    }
    throw new Error(`all ${MAX_NAMES_PER_ID} dead-letter names for event ${event.id} in this hour are taken`);
  }

  /**
   * When the blob is this event's dead letter for this endpoint already, replaces its metadata
   * with `metadata` (which has no redelivery marks) and answers true. A blob that cannot be read
   * (a SAS without read permission, or deleted meanwhile) counts as another event's: the writer
   * then takes the next name, so at worst an event is stored twice, never lost.
   */
  private async renewed(
    endpoint: DeliveryEndpoint,
    place: string,
    blob: BlockBlobClient,
    body: string,
    metadata: Record<string, string>,
  ): Promise<boolean> {
    let existing: Record<string, string> | undefined;
    try {
      existing = (await blob.getProperties({ abortSignal: storageDeadline(this.deadlineMs) })).metadata;
    } catch {
      return false;
    }
    if (!this.marks.verifies(existing, { endpointId: endpoint.id, place, blobName: blob.name, body }))
      return false;
    await blob.setMetadata(metadata, { abortSignal: storageDeadline(this.deadlineMs) });
    return true;
  }

  private container(target: DeadLetterTarget): ContainerClient {
    const key = deadLetterTargetKey(target);
    let container = this.containers.get(key);
    if (!container) {
      container = deadLetterContainer(target, { maxTries: 4, tryTimeoutInMs: 15_000 });
      this.containers.set(key, container);
    }
    return container;
  }
}

function deadLetterRecord(why: DeadLetterReason, at: Date): Record<string, string> {
  return {
    [REASON_METADATA]: why.reason,
    deliveryattempts: String(why.attempts),
    lasterror: headerSafe(why.lastError),
    [DEAD_LETTERED_AT_METADATA]: at.toISOString(),
  };
}

/** Uploads only when the name is free; false when it is taken. */
async function create(
  blob: BlockBlobClient,
  body: string,
  metadata: Record<string, string>,
  deadlineMs: number,
): Promise<boolean> {
  try {
    await blob.upload(body, Buffer.byteLength(body), {
      abortSignal: storageDeadline(deadlineMs),
      conditions: { ifNoneMatch: "*" },
      blobHTTPHeaders: { blobContentType: "application/cloudevents+json" },
      metadata,
    });
    return true;
  } catch (error) {
    if (isNameTaken(error)) return false;
    throw error;
  }
}
