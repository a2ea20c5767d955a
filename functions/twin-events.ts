// First: the metrics exporter starts before anything records (functions/lib/telemetry.ts).
import "./lib/telemetry";
import { app } from "@azure/functions";
import { queueFunctions } from "../src/triggers/queue-functions";
import { services } from "./lib/services";

for (const definition of queueFunctions) {
  app.storageQueue(definition.name, {
    queueName: definition.queueName(services.config),
    connection: definition.connection,
    handler: (message, context) => definition.handler(message, context, services),
  });
}
