import { sizedEvents } from "../../bench/delivery";
import { ROUTED_ENDPOINTS, routeFilters } from "../../bench/delivery-routes";
import { makeEvents } from "../../bench/twin-events";
import { compileFilter } from "../../src/event-routes/filter";

// The routes part compares routed delivery with delivery without routes on the same events: both
// sides send the same messages only if every route's filter lets every bench event through.
describe("the delivery bench's event routes", () => {
  const filters = routeFilters(ROUTED_ENDPOINTS);

  it("has a distinct $body filter per endpoint", () => {
    expect(new Set(filters).size).toBe(ROUTED_ENDPOINTS);
    expect(filters.every((filter) => filter.startsWith("$body."))).toBe(true);
  });

  it("lets every bench event through every filter", () => {
    const events = [...makeEvents(20, "plain"), ...sizedEvents(20, "sized", 1024)];
    for (const filter of filters) expect(events.every(compileFilter(filter))).toBe(true);
  });
});
