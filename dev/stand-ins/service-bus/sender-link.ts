import { type Delivery, type Message, message, type Receiver } from "rhea";
import { BATCH_MESSAGE_FORMAT, decodeBatch } from "./batch-decoder";
import type { Topic } from "./topic-registry";

/**
 * The stand-in's end of a client's sender link to a topic. A transfer is one message (format 0,
 * which rhea decodes) or a batch envelope (array and `ServiceBusMessageBatch` sends); its messages
 * are enqueued before the transfer is accepted, so a send that resolved is a send that arrived.
 */
export function serveTopicSender(link: Receiver, topic: Topic, maxMessageSize: number): void {
  link.on("message", (context) => {
    const delivery = context.delivery;
    if (delivery === undefined) return;
    const payload: unknown = context.message;
    if (delivery.format !== 0 && delivery.format !== BATCH_MESSAGE_FORMAT) {
      return refuse(delivery, "amqp:not-implemented", `message format ${delivery.format} is not supported`);
    }
    let messages: Message[];
    let size: number;
    try {
      if (delivery.format === BATCH_MESSAGE_FORMAT) {
        if (!Buffer.isBuffer(payload)) throw new Error("a batch transfer carries no payload");
        messages = decodeBatch(payload);
        size = payload.length;
      } else {
        const single = payload as Message;
        messages = [single];
        // rhea hands over format-0 messages decoded; re-encoding gives their size on the wire.
        size = message.encode(single).length;
      }
    } catch (error) {
      return refuse(delivery, "amqp:decode-error", `undecodable message: ${(error as Error).message}`);
    }
    if (size > maxMessageSize) {
      return refuse(
        delivery,
        "amqp:link:message-size-exceeded",
        `The message (${size} bytes) is larger than the link's maximum message size (${maxMessageSize} bytes).`,
      );
    }
    for (const each of messages) topic.publish(each);
    delivery.accept();
  });
}

function refuse(delivery: Delivery, condition: string, description: string): void {
  delivery.reject({ condition, description });
}
