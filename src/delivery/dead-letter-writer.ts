import { AnonymousCredential, ContainerClient } from "@azure/storage-blob";

import type { DeliveryEndpoint } from "../endpoints/endpoint-service";
import type { CloudEvent } from "../events/cloud-event";

export interface DeadLetterReason {
  reason: "MaxDeliveryAttemptsExceeded" | "TtlExpired";
  attempts: number;
  lastError: string;
}

function pad(value: number): string {
  return String(value).padStart(2, "0");
}

/** `{endpointName}/{yyyy}/{MM}/{dd}/{HH}/{eventId}.json`, UTC; path separators in an id are replaced. */
export function deadLetterBlobName(endpointName: string, eventId: string, at: Date): string {
  const safeId = eventId.replace(/[/\\]/g, "_");
  return [
    endpointName,
    at.getUTCFullYear(),
    pad(at.getUTCMonth() + 1),
    pad(at.getUTCDate()),
    pad(at.getUTCHours()),
    `${safeId}.json`,
  ].join("/");
}

/** Blob metadata travels as HTTP headers: printable ASCII only. */
function headerSafe(value: string): string {
  return value.replace(/[^\x20-\x7e]/g, "?").slice(0, 1024);
}

/**
 * Writes undeliverable events, as the original CloudEvent JSON, into the endpoint's dead-letter
 * container through its SAS URL. One container client per SAS URL per process.
 */
export class DeadLetterWriter {
  private readonly containers = new Map<string, ContainerClient>();

  async write(endpoint: DeliveryEndpoint, event: CloudEvent, why: DeadLetterReason, at: Date): Promise<void> {
    const sasUrl = endpoint.secrets.deadLetterStorageSecret;
    if (sasUrl === undefined) throw new Error("the endpoint has no dead-letter secret");
    const body = JSON.stringify(event);
    await this.container(sasUrl)
      .getBlockBlobClient(deadLetterBlobName(endpoint.name, event.id, at))
      .upload(body, Buffer.byteLength(body), {
        blobHTTPHeaders: { blobContentType: "application/cloudevents+json" },
        metadata: {
          deadletterreason: why.reason,
          deliveryattempts: String(why.attempts),
          lasterror: headerSafe(why.lastError),
        },
      });
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
