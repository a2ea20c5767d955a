import { randomBytes } from "node:crypto";
import { DeadLetterMarks } from "../../src/delivery/dead-letter-mark";
import {
  DeadLetterRedelivery,
  type RedeliveryStorageOptions,
} from "../../src/delivery/dead-letter-redelivery";
import { DeadLetterWriter } from "../../src/delivery/dead-letter-writer";
import type { DeliveryQueues } from "../../src/delivery/delivery-queues";
import { cloudEvent, deadLetterEndpoint, deadLetterUrl } from "./delivery-kit";

/** What the redelivery storage tests share: dead letters written as delivery writes them, and a redelivery that records. */

/** A dead-letter container holding dead letters `ids` of the endpoint, written as delivery writes them. */
export async function deadLetters(ids: string[]) {
  const sasUrl = await deadLetterUrl();
  const marks = new DeadLetterMarks(randomBytes(32));
  const writer = new DeadLetterWriter(marks);
  const why = { reason: "TtlExpired", attempts: 3, lastError: "gone" } as const;
  for (const id of ids) await writer.write(deadLetterEndpoint(sasUrl), cloudEvent(id), why, new Date());
  return { sasUrl, marks };
}

/**
 * A redelivery whose requeued events are recorded rather than queued, each after `requeueing`
 * settles when given (a slow queue: time that passes outside every storage call).
 */
export function redeliveryRecording(
  marks: DeadLetterMarks,
  storage: RedeliveryStorageOptions,
  requeueing?: () => Promise<void>,
) {
  const requeued: string[] = [];
  const queues: Pick<DeliveryQueues, "scheduleRetry"> = {
    scheduleRetry: async (_message, events) => {
      await requeueing?.();
      requeued.push(...events.map((event) => event.id));
    },
  };
  return { requeued, redelivery: new DeadLetterRedelivery(queues, marks, () => new Date(), storage) };
}
