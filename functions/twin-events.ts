import { app } from "@azure/functions";
import { queueFunctions } from "../src/triggers/queue-functions";
import { services } from "./lib/services";
import { startAzureMonitorOnce } from "./lib/telemetry";

for (const definition of queueFunctions) {
  app.storageQueue(definition.name, {
    queueName: definition.queueName(services.config),
    connection: definition.connection,
    handler: (message, context) => {
      // The metrics exporter starts before delivery first records (functions/lib/telemetry.ts).
      startAzureMonitorOnce();
      return definition.handler(message, context, services);
    },
  });
}
