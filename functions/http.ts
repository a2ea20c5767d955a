import { app } from "@azure/functions";
import { loadConfig } from "../src/config";
import { routes } from "../src/http/routes";
import { withHttpConventions } from "../src/http/with-conventions";
import { createServices } from "../src/services";

// Settings are validated when the worker loads this file: a bad setting stops the app at start-up
// with a message naming it, instead of failing the first request.
const services = createServices(loadConfig());

for (const route of routes) {
  app.http(route.name, {
    methods: route.methods,
    route: route.route,
    authLevel: route.authLevel,
    handler: withHttpConventions(route.handler, () => services),
  });
}
