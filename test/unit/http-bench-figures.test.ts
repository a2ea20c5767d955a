import { combinedDriven, type DrivenFigure } from "../../bench/http-bench";

function slice(count: number, seconds: number, server: number, driver: number, failed = 0): DrivenFigure {
  return {
    count,
    seconds,
    perSecond: (count - failed) / seconds,
    failures: failed > 0 ? { "500": failed } : {},
    cpuMicrosPerRequest: server,
    driverMicrosPerRequest: driver,
    driverCoreShare: (driver * count) / (seconds * 1e6),
    cosmosMicrosPerRequest: 50,
  };
}

describe("the HTTP bench's figures over a round's slices", () => {
  it("weighs CPU per request by requests, and the driver's share of a core by wall time", () => {
    const figure = combinedDriven([slice(1000, 0.5, 200, 40), slice(3000, 1.5, 300, 60)]);
    expect(figure.count).toBe(4000);
    expect(figure.perSecond).toBeCloseTo(2000);
    expect(figure.cpuMicrosPerRequest).toBeCloseTo(275);
    expect(figure.driverMicrosPerRequest).toBeCloseTo(55);
    // 220 ms of the driver's CPU over 2 s of requests.
    expect(figure.driverCoreShare).toBeCloseTo(0.11);
    expect(figure.cosmosMicrosPerRequest).toBeCloseTo(50);
  });

  it("counts failed requests out of the rate and keeps them", () => {
    const figure = combinedDriven([slice(1000, 1, 200, 40, 10), slice(1000, 1, 200, 40)]);
    expect(figure.perSecond).toBeCloseTo(995);
    expect(figure.failures).toEqual({ "500": 10 });
  });
});
