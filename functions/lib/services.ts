import { loadConfig } from "../../src/config";
import { createServices } from "../../src/services";

// Settings are validated when the worker loads the entry points: a bad setting stops the app at
// start-up with a message naming it, instead of failing the first request. One Services (one
// Cosmos client, one sender pool) serves every function of the process; its parts, and the Azure
// SDKs they load, are made on first use (src/services.ts), so loading the entry points stays quick.
export const services = createServices(loadConfig());
