import * as path from "node:path";
import { freePort } from "../dev/ports";
import { DEV_KEY, DEV_KEY_NAME } from "../dev/stand-ins/service-bus";
import { startChild } from "./child";

export interface ServiceBusProcess {
  connectionString(entityPath?: string): string;
  close(): Promise<void>;
}

/** The built Service Bus stand-in (dist/dev/stand-ins/service-bus/main.js) as a child process. */
export async function startServiceBusProcess(): Promise<ServiceBusProcess> {
  const port = await freePort();
  const child = await startChild(path.join(__dirname, "..", "dev", "stand-ins", "service-bus", "main.js"), {
    SERVICEBUS_PORT: String(port),
  });
  return {
    connectionString: (entityPath) =>
      `Endpoint=sb://127.0.0.1:${port}/;SharedAccessKeyName=${DEV_KEY_NAME};SharedAccessKey=${DEV_KEY};UseDevelopmentEmulator=true${
        entityPath === undefined ? "" : `;EntityPath=${entityPath}`
      }`,
    close: () => child.close(),
  };
}
