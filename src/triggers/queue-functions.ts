import { twinEventsFunction } from "../delivery/twin-events-function";
import type { QueueFunctionDefinition } from "./queue-function";

/** Every queue-triggered function; like the route table beside it, the one list both hosts serve. */
export const queueFunctions: readonly QueueFunctionDefinition[] = [twinEventsFunction];
