import { spawn } from "node:child_process";
import * as path from "node:path";
import { freePort } from "../dev/ports";
import { DEV_KEY, DEV_KEY_NAME } from "../dev/stand-ins/service-bus";

export interface ServiceBusProcess {
  connectionString(entityPath?: string): string;
  close(): Promise<void>;
}

/** The built Service Bus stand-in (dist/dev/stand-ins/service-bus/main.js) as a child process. */
export async function startServiceBusProcess(): Promise<ServiceBusProcess> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [path.join(__dirname, "..", "dev", "stand-ins", "service-bus", "main.js")],
    {
      env: { ...process.env, SERVICEBUS_PORT: String(port) },
      stdio: ["ignore", "ignore", "inherit", "ipc"],
    },
  );
  // main.js reports { ready: true } over IPC once it listens.
  await new Promise<void>((resolve, reject) => {
    child.once("message", () => resolve());
    child.once("exit", (code) => reject(new Error(`the Service Bus stand-in exited with ${code}`)));
  });
  return {
    connectionString: (entityPath) =>
      `Endpoint=sb://127.0.0.1:${port}/;SharedAccessKeyName=${DEV_KEY_NAME};SharedAccessKey=${DEV_KEY};UseDevelopmentEmulator=true${
        entityPath === undefined ? "" : `;EntityPath=${entityPath}`
      }`,
    close: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
