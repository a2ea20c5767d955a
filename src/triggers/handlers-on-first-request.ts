import type { HttpHandler } from "@azure/functions";
import type { RouteRow } from "../http/route";
import { withHttpConventions } from "../http/with-conventions";
import type { Services } from "../services";
import { definitionOf } from "./routes";

/**
 * The handler of a row of the route table, under the HTTP conventions, its module loaded with the
 * first request it takes rather than with the entry points: registering a function needs only the
 * row. The same handler, so the same answers: it only waits until it is needed.
 */
export function handlerOnFirstRequest(row: RouteRow, services: () => Services): HttpHandler {
  let handler: HttpHandler | undefined;
  return (request, context) => {
    handler ??= withHttpConventions(definitionOf(row), services);
    return handler(request, context);
  };
}
