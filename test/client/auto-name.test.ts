import fc from "fast-check";
import { AUTO_NAME_SUFFIX_LENGTH, autoName, randomSuffix } from "../../client";
import { endpointNameSchema } from "../../src/endpoints/endpoint-path";

// Auto-naming of endpoints created without a name: `<logical name>-<7 random chars>`.
describe("autoName", () => {
  it("is the logical name, a hyphen and 7 lowercase letters or digits", () => {
    expect(autoName("orders")).toMatch(/^orders-[a-z0-9]{7}$/);
    expect(autoName("orders", "abc1234")).toBe("orders-abc1234");
  });

  it("is valid under the service's endpoint-name rule for any logical name", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (logicalName) => {
        expect(endpointNameSchema.safeParse(autoName(logicalName)).success).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("keeps what the rule allows of the logical name and falls back to 'endpoint'", () => {
    expect(autoName("my endpoint/é", "abcdefg")).toBe("my-endpoint-abcdefg");
    expect(autoName("--", "abcdefg")).toBe("endpoint-abcdefg");
    expect(autoName("x".repeat(60), "abcdefg")).toHaveLength(50);
  });

  it("draws each suffix fresh from [a-z0-9]", () => {
    const suffixes = new Set(Array.from({ length: 200 }, () => randomSuffix()));
    expect(suffixes.size).toBe(200);
    for (const suffix of suffixes)
      expect(suffix).toMatch(new RegExp(`^[a-z0-9]{${AUTO_NAME_SUFFIX_LENGTH}}$`));
  });
});
