/** The real listener's shortest wait between polls (QueuePollingIntervals.Minimum). */
export const MINIMUM_POLLING_INTERVAL_MS = 100;

const RANDOMIZATION_FACTOR = 0.2;

/**
 * How long an idle queue listener waits before polling again, as the WebJobs
 * RandomizedExponentialBackoffStrategy does: back to the minimum after a poll found messages,
 * otherwise roughly doubling (±20 %) up to host.json's maxPollingInterval.
 */
export class PollingBackoff {
  private readonly minimumMs: number;
  private currentMs: number;
  private exponent = 0;

  constructor(private readonly maximumMs: number) {
    this.minimumMs = Math.min(MINIMUM_POLLING_INTERVAL_MS, maximumMs);
    this.currentMs = this.minimumMs;
  }

  nextDelayMs(foundMessagesSinceLastDelay: boolean): number {
    if (foundMessagesSinceLastDelay) {
      this.currentMs = this.minimumMs;
      this.exponent = 1;
    } else if (this.currentMs !== this.maximumMs) {
      let backoffMs = this.minimumMs;
      if (this.exponent > 0) {
        const jitter = 1 - RANDOMIZATION_FACTOR + Math.random() * 2 * RANDOMIZATION_FACTOR;
        backoffMs += jitter * 2 ** (this.exponent - 1) * this.minimumMs;
      }
      if (backoffMs < this.maximumMs) {
        this.currentMs = backoffMs;
        this.exponent++;
      } else {
        this.currentMs = this.maximumMs;
      }
    }
    return this.currentMs;
  }
}
