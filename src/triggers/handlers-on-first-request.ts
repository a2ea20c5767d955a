import type { HttpHandler } from "@azure/functions";
import { withHttpConventions } from "../http/with-conventions";
import type { Services } from "../services";

let handlers: ReadonlyMap<string, HttpHandler> | undefined;

/** Every route of the table under the HTTP conventions, by function name. */
function conventionalHandlers(services: () => Services): ReadonlyMap<string, HttpHandler> {
  // The table (its zod schemas, examples and handlers) loads here, with the first request, not with
  // the entry points: registering a function needs only route-registrations.ts.
  const { routes } = require("./routes") as typeof import("./routes");
  return new Map(routes.map((route) => [route.name, withHttpConventions(route, services)]));
}

/**
 * The handler of the route named `name`, as withHttpConventions makes it from the route table, the
 * table loaded on the first request any of them takes. The same handler, so the same answers: it
 * only waits until it is needed.
 */
export function handlerOnFirstRequest(name: string, services: () => Services): HttpHandler {
  return async (request, context) => {
    handlers ??= conventionalHandlers(services);
    const handler = handlers.get(name);
    if (handler === undefined) throw new Error(`the route table has no route named '${name}'`);
    return handler(request, context);
  };
}
