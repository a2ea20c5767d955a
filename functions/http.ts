// No telemetry here: only delivery records metrics, and its exporter starts with the queue
// function's first invocation (functions/lib/telemetry.ts), off the HTTP cold start.
import { app } from "@azure/functions";
import { hostAuthLevel } from "../src/http/caller";
import { methodNotAllowedFunctions } from "../src/http/method-not-allowed";
import { withHttpConventions } from "../src/http/with-conventions";
import { handlerOnFirstRequest } from "../src/triggers/handlers-on-first-request";
import { routeRegistrations } from "../src/triggers/route-registrations";
import { services } from "./lib/services";

// The host needs every function at load; the route table behind them loads with the first request.
for (const route of routeRegistrations) {
  app.http(route.name, {
    methods: route.methods,
    route: route.route,
    // Under AUTH_MODE=entra the host lets every request through and the app checks the token.
    authLevel: hostAuthLevel(route.authLevel, services.config.AUTH_MODE),
    handler: handlerOnFirstRequest(route.name, () => services),
  });
}

// The host answers a method no function of a route takes with a bare 404: these answer 405 with Allow.
for (const companion of methodNotAllowedFunctions(routeRegistrations)) {
  app.http(companion.name, {
    methods: companion.methods,
    route: companion.route,
    authLevel: "anonymous",
    handler: withHttpConventions({ ...companion, authLevel: "anonymous" }, () => services),
  });
}
