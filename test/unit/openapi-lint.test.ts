import { lintApiDescription } from "../../tools/api-lint";

// The API description is lint-clean under Redocly's recommended ruleset: not
// one error, warning or hint (npm run lint:api runs the same check).
it("has no Redocly problem", () => {
  const { redocly } = lintApiDescription();
  expect(redocly).toEqual([]);
}, 60_000);
