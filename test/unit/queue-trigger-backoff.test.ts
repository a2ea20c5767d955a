import { PollingBackoff } from "../../dev/queue-trigger";

// How long the local queue trigger waits between polls of an empty queue: no storage needed.

describe("polling backoff on an empty queue", () => {
  it("grows roughly exponentially from 100 ms to maxPollingInterval and stays there", () => {
    const backoff = new PollingBackoff(2000);
    const delays = Array.from({ length: 12 }, () => backoff.nextDelayMs(false));
    expect(delays[0]).toBe(100);
    for (let i = 1; i < delays.length; i++) expect(delays[i]).toBeGreaterThanOrEqual(delays[i - 1] ?? 0);
    expect(delays.every((delay) => delay <= 2000)).toBe(true);
    expect(delays.at(-1)).toBe(2000);
  });

  it("goes back to 100 ms once a poll found messages", () => {
    const backoff = new PollingBackoff(2000);
    for (let i = 0; i < 10; i++) backoff.nextDelayMs(false);
    expect(backoff.nextDelayMs(true)).toBe(100);
  });

  it("never waits longer than a maxPollingInterval below the 100 ms minimum", () => {
    const backoff = new PollingBackoff(50);
    expect([backoff.nextDelayMs(false), backoff.nextDelayMs(false), backoff.nextDelayMs(true)]).toEqual([
      50, 50, 50,
    ]);
  });
});
