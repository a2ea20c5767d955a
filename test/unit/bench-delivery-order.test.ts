import { endToEndFirst } from "../../bench/delivery-bench";

// The delivery bench's paths share the broker and Azurite, so the path that runs first in a round
// pays for the other's leftovers: the order must alternate, not always favour one path.
describe("the delivery bench's order within a round", () => {
  it("alternates, end to end first in round 1", () => {
    expect([1, 2, 3, 4].map(endToEndFirst)).toEqual([true, false, true, false]);
  });

  it("gives each path the first place in half of an even number of rounds", () => {
    const rounds = Array.from({ length: 10 }, (_, index) => endToEndFirst(index + 1));
    expect(rounds.filter(Boolean)).toHaveLength(5);
  });
});
