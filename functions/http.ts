// No telemetry here: only delivery records metrics, and its exporter starts with the queue
// function's first invocation (functions/lib/telemetry.ts), off the HTTP cold start.
import { app } from "@azure/functions";
import { hostAuthLevel } from "../src/http/caller";
import { methodNotAllowedFunctions } from "../src/http/method-not-allowed";
import { withHttpConventions } from "../src/http/with-conventions";
import { handlerOnFirstRequest } from "../src/triggers/handlers-on-first-request";
import { routeTable } from "../src/triggers/routes";
import { services } from "./lib/services";

// The host needs every function at load; each one's handler module loads with its first request.
for (const route of routeTable) {
  app.http(route.name, {
    methods: [route.method],
    route: route.route,
    // Under AUTH_MODE=entra the host lets every request through and the app checks the token.
    authLevel: hostAuthLevel(route.authLevel, services.config.AUTH_MODE),
    handler: handlerOnFirstRequest(route, () => services),
  });
}

// The host answers a method no function of a route takes with a bare 404: these answer 405 with Allow.
for (const companion of methodNotAllowedFunctions(
  routeTable.map(({ name, method, route }) => ({ name, methods: [method], route })),
)) {
  app.http(companion.name, {
    methods: companion.methods,
    route: companion.route,
    authLevel: "anonymous",
    handler: withHttpConventions({ ...companion, authLevel: "anonymous" }, () => services),
  });
}
