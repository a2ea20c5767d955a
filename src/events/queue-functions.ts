import { twinEventsFunction } from "../delivery/twin-events-function";
import type { QueueFunctionDefinition } from "./queue-function";

/** Every queue-triggered function; like the route table, the one list both hosts serve. */
export const queueFunctions: readonly QueueFunctionDefinition[] = [twinEventsFunction];
