import { loadConfig } from "../../src/config";
import { createServices } from "../../src/services";

// Settings are validated when the worker loads the entry points: a bad setting stops the app at
// start-up with a message naming it, instead of failing the first request. One Services (one
// Cosmos client, one sender pool) serves every function of the process.
export const services = createServices(loadConfig());
