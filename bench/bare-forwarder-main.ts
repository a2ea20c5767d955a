import { ServiceBusClient, type ServiceBusSender } from "@azure/service-bus";
import { QueueServiceClient } from "@azure/storage-queue";
import { forward } from "./bare-forwarder";
import { serveDeliveryJobs } from "./delivery-child";

/**
 * The bare forwarder as a process of its own (its CPU read from /proc, as the host's). Env:
 * FORWARDER_STORAGE, FORWARDER_SERVICE_BUS (connection strings). A client (AMQP connection) and
 * sender per topic, kept across jobs, as the host's sender pool keeps one per endpoint.
 */
const storage = QueueServiceClient.fromConnectionString(process.env.FORWARDER_STORAGE ?? "");
const clients = new Map<string, [ServiceBusClient, ServiceBusSender]>();
function senderOf(topic: string): ServiceBusSender {
  const client = clients.get(topic)?.[0] ?? new ServiceBusClient(process.env.FORWARDER_SERVICE_BUS ?? "");
  if (!clients.has(topic)) clients.set(topic, [client, client.createSender(topic)]);
  return clients.get(topic)?.[1] as ServiceBusSender;
}

serveDeliveryJobs(
  async ({ queue, topics }) => {
    let stopped = false;
    const running = forward(storage.getQueueClient(queue), topics.map(senderOf), () => stopped);
    running.catch(() => {}); // reported by the stop
    return () => {
      stopped = true;
      return running;
    };
  },
  () => Promise.all([...clients.values()].map(([client]) => client.close())).then(() => undefined),
);
