import { type HandlerFigures, type HandlerPair, handlerRatios } from "../../bench/handler-bench";

function pair(serviceCpuUs: number, minimalCpuUs: number): HandlerPair {
  return {
    service: { cpuUs: serviceCpuUs, wallUs: 2 * serviceCpuUs },
    minimal: { cpuUs: minimalCpuUs, wallUs: 2 * minimalCpuUs },
    serviceFirst: true,
  };
}

function figures(rounds: Record<string, HandlerPair>[], errors = 0): HandlerFigures {
  return {
    requests: 300,
    operations: ["GET a profile"],
    rounds: {
      values: rounds,
      errors: Array.from({ length: errors }, (_, index) => ({ round: index + 1, message: "failed" })),
    },
    nodeVersion: "v20.0.0",
  };
}

describe("the handler bench's ratios", () => {
  it("divides the service's CPU per request by the minimal handler's, round by round", () => {
    const { ratios, held } = handlerRatios(
      figures([{ "GET a profile": pair(500, 400) }, { "GET a profile": pair(600, 400) }]),
      "GET a profile",
    );
    expect(ratios).toEqual([1.25, 1.5]);
    // 1.25 is within the goal (≤ 1.25 ×); 1.5 is not.
    expect(held).toBe(1);
  });

  it("counts a round without the operation as not held, and failed rounds not at all", () => {
    const { ratios, held } = handlerRatios(
      figures([{}, { "GET a profile": pair(300, 300) }], 1),
      "GET a profile",
    );
    expect(ratios[0]).toBeNaN();
    expect(ratios[1]).toBe(1);
    expect(held).toBe(1);
  });
});
