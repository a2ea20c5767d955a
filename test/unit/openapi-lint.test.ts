import { lintApiDescription } from "../../dev/api-lint";

// The API description is lint-clean under Redocly's recommended and Spectral's oas rulesets: not
// one error, warning or hint (npm run lint:api runs the same check).
it("has no Redocly or Spectral problem", () => {
  const { redocly, spectral } = lintApiDescription();
  expect(redocly).toEqual([]);
  expect(spectral).toEqual([]);
}, 60_000);
