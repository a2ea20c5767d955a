import { app } from "@azure/functions";
import { routes } from "../src/http/routes";
import { withHttpConventions } from "../src/http/with-conventions";
import { services } from "./lib/services";

for (const route of routes) {
  app.http(route.name, {
    methods: route.methods,
    route: route.route,
    authLevel: route.authLevel,
    handler: withHttpConventions(route.handler, () => services),
  });
}
