import { AnonymousCredential, type BlockBlobClient, ContainerClient } from "@azure/storage-blob";

import type { DeliveryEndpoint } from "../endpoints/endpoint-service";
import type { CloudEvent } from "../events/cloud-event";
import { deadLetterBlobName, MAX_NAMES_PER_ID } from "./dead-letter-name";

export interface DeadLetterReason {
  reason: "MaxDeliveryAttemptsExceeded" | "TtlExpired";
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
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return status === 409 || status === 412;
}

/** The container's name, the last segment of the SAS URL's path; never the query, which holds the signature. */
function containerName(sasUrl: string): string {
  return decodeURIComponent(new URL(sasUrl).pathname.split("/").filter(Boolean).pop() ?? "");
}

/**
 * Writes undeliverable events, as the original CloudEvent JSON, into the endpoint's dead-letter
 * container through its SAS URL (names: see dead-letter-name.ts). A write never replaces a blob:
 * each upload is conditional on the name being free (If-None-Match: *), and a taken name moves the
 * event on to `{eventId}.1.json`, `.2.json`, … unless the blob there holds this very event already
 * (a retry of a write that landed before a crash, or the same event dead-lettered again), which
 * counts as written. One container client per SAS URL per process.
 */
export class DeadLetterWriter {
  private readonly containers = new Map<string, ContainerClient>();

  async write(
    endpoint: DeliveryEndpoint,
    event: CloudEvent,
    why: DeadLetterReason,
    at: Date,
  ): Promise<DeadLetterPlace> {
    const sasUrl = endpoint.secrets?.deadLetterStorageSecret;
    if (sasUrl === undefined) throw new Error("the endpoint has no dead-letter secret");
    const body = JSON.stringify(event);
    const container = this.container(sasUrl);
    for (let copy = 0; copy < MAX_NAMES_PER_ID; copy++) {
      const blobName = deadLetterBlobName(endpoint.name, event.id, at, copy);
      const blob = container.getBlockBlobClient(blobName);
      if ((await this.create(blob, body, why)) || (await holds(blob, body))) {
        return { container: containerName(sasUrl), blobName };
      }
    }
    throw new Error(`all ${MAX_NAMES_PER_ID} dead-letter names for event ${event.id} in this hour are taken`);
  }

  /** Uploads only when the name is free; false when it is taken. */
  private async create(blob: BlockBlobClient, body: string, why: DeadLetterReason): Promise<boolean> {
    try {
      await blob.upload(body, Buffer.byteLength(body), {
        conditions: { ifNoneMatch: "*" },
        blobHTTPHeaders: { blobContentType: "application/cloudevents+json" },
        metadata: {
          deadletterreason: why.reason,
          deliveryattempts: String(why.attempts),
          lasterror: headerSafe(why.lastError),
        },
      });
      return true;
    } catch (error) {
      if (isNameTaken(error)) return false;
      throw error;
    }
  }

  private container(sasUrl: string): ContainerClient {
    let container = this.containers.get(sasUrl);
    if (!container) {
      container = new ContainerClient(sasUrl, new AnonymousCredential(), {
        retryOptions: { maxTries: 4, retryDelayInMs: 500, tryTimeoutInMs: 15_000 },
      });
      this.containers.set(sasUrl, container);
    }
    return container;
  }
}

/**
 * Whether the blob holds exactly `body`. A blob that cannot be read (a SAS without read permission,
 * or deleted meanwhile) counts as another event's: the writer then takes the next name, so at
 * worst an event is stored twice, never lost.
 */
async function holds(blob: BlockBlobClient, body: string): Promise<boolean> {
  try {
    return (await blob.downloadToBuffer()).equals(Buffer.from(body, "utf8"));
  } catch {
    return false;
  }
}
