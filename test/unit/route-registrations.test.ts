import { routeRegistrations } from "../../src/triggers/route-registrations";
import { routes } from "../../src/triggers/routes";

// functions/http.ts registers route-registrations.ts at load and loads the route table with the
// first request: the two must name the same functions, in the same order, with the same methods,
// templates and key levels, or a route would be registered wrongly or not at all.
describe("the route registrations", () => {
  it("are the route table's name, methods, template and key level, route for route", () => {
    expect(routeRegistrations).toEqual(
      routes.map(({ name, methods, route, authLevel }) => ({ name, methods, route, authLevel })),
    );
  });

  it("name each function once", () => {
    const names = routeRegistrations.map((registration) => registration.name);
    expect(new Set(names).size).toBe(names.length);
  });
});
