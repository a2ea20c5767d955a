import { goalVerdict } from "../../bench/rounds";
import { SOAK_GOAL, stallFigure } from "../../bench/soak-report";
import { soakTimeline, soakWindows } from "../../bench/soak-windows";

// The soak's figures are computed, not measured here: windows of events, each with its requests'
// answers and its events' delivery, a request without an answer counted, never dropped.

const T0 = Date.parse("2026-11-25T00:00:00Z");

/** 10 requests of 5 events, one every 100 ms; answers and deliveries as given. */
function timings(answer: (request: number) => number, delivered: (event: number) => number | undefined) {
  const sentAt = Array.from({ length: 10 }, (_, request) => T0 + request * 100);
  return {
    events: 50,
    batch: 5,
    window: 20,
    sentAt,
    answerMs: sentAt.map((_, request) => answer(request)),
    enqueuedAt: Array.from({ length: 50 }, (_, event) => delivered(event)),
    samples: [1, 2].map((second) => ({
      at: T0 + second * 1000,
      hostLoopDelayMaxMs: second * 10,
      childCpu: second / 10,
      childRssMb: 100 + second,
    })),
  };
}

describe("soak windows", () => {
  it("cuts the events into windows of the given size, the last one short, each with its own requests", () => {
    const windows = soakWindows(
      timings(
        (request) => 10 + request,
        (event) => T0 + event * 20 + 50,
      ),
    );
    expect(windows.map((w) => [w.firstEvent, w.events, w.requests])).toEqual([
      [0, 20, 4],
      [20, 20, 4],
      [40, 10, 2],
    ]);
    expect(windows.map((w) => [w.p50, w.p99, w.max])).toEqual([
      [11, 13, 13],
      [15, 17, 17],
      [18, 19, 19],
    ]);
    expect(windows[0]?.unanswered).toBe(0);
    expect(windows[0]?.storageRssMb).toBe(101);
  });

  it("counts an unanswered request against its window, and the goal then fails there whatever the p99", () => {
    const windows = soakWindows(
      timings(
        (request) => (request === 5 ? Number.NaN : 5),
        (event) => T0 + event,
      ),
    );
    expect(windows.map((w) => w.unanswered)).toEqual([0, 1, 0]);
    expect(windows[1]?.p99).toBe(5);
    const figures = windows.map(stallFigure);
    expect(figures[1]).toBe(Number.POSITIVE_INFINITY);
    const verdict = goalVerdict(
      figures.map((f) => (Number.isFinite(f) ? f : Number.MAX_VALUE)),
      (f) => f <= SOAK_GOAL.windowP99Ms,
      "windows",
    );
    expect(verdict).toBe("met in 2 of 3 windows");
  });

  it("makes an event that never arrived the slowest of its window's end to end, not a missing figure", () => {
    const windows = soakWindows(
      timings(
        () => 5,
        (event) => (event === 3 ? undefined : T0 + 1000),
      ),
    );
    expect(windows[0]?.endToEndP99).toBeNaN();
    expect(windows[1]?.endToEndP99).toBe(1000 - 400);
  });

  it("goes second by second with the stack's figures of the second that followed", () => {
    const seconds = soakTimeline(
      timings(
        (request) => request,
        () => T0,
      ),
    );
    expect(seconds).toHaveLength(1);
    expect(seconds[0]).toMatchObject({ second: 0, sent: 10, unanswered: 0, max: 9, hostLoopDelayMaxMs: 10 });
  });
});
