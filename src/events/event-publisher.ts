import type { QueueClient } from "@azure/storage-queue";
import { translateStorageError } from "../store/storage-errors";
import type { CloudEvent } from "./cloud-event";
import { encodeQueueMessage, packEvents } from "./queue-message";

/**
 * Puts ingested events durably on the twin-events queue, split into messages under the queue's
 * 64 KiB limit. Resolves only when every message is stored: that is what a 202 promises.
 */
export class EventPublisher {
  private queueReady: Promise<unknown> | undefined;

  constructor(private readonly queue: QueueClient) {}

  async publish(twinsInstanceId: string, events: CloudEvent[]): Promise<number> {
    const messages = packEvents({ twinsInstanceId, receivedAt: new Date().toISOString() }, events);
    try {
      // Created once per process; a failed attempt is forgotten so the next request tries again.
      this.queueReady ??= this.queue.createIfNotExists().catch((error: unknown) => {
        this.queueReady = undefined;
        throw error;
      });
      await this.queueReady;
      await Promise.all(messages.map((message) => this.queue.sendMessage(encodeQueueMessage(message))));
    } catch (error) {
      throw translateStorageError(error);
    }
    return events.length;
  }
}
