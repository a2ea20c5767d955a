import * as path from "node:path";
import { freePort } from "../dev/ports";
import { startChild } from "./child";

export interface CosmosProcess {
  endpoint: string;
  close(): Promise<void>;
}

/** bench/cosmos-server-main.js (built) as a child process on a free loopback port. */
export async function startCosmosProcess(): Promise<CosmosProcess> {
  const port = await freePort();
  const child = await startChild(path.join(__dirname, "cosmos-server-main.js"), {
    COSMOS_PORT: String(port),
  });
  return { endpoint: `https://127.0.0.1:${port}/`, close: () => child.close() };
}
