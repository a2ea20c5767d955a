export interface BackoffPolicy {
  baseSeconds: number;
  capSeconds: number;
}

/**
 * Seconds to wait before attempt `attempt + 1`: exponential from the base, capped, with "equal
 * jitter" (half fixed, half random) so retries of a burst of failures spread out instead of
 * arriving together.
 */
export function backoffSeconds(
  policy: BackoffPolicy,
  attempt: number,
  random: () => number = Math.random,
): number {
  const exponential = Math.min(policy.capSeconds, policy.baseSeconds * 2 ** Math.max(0, attempt - 1));
  return Math.max(1, Math.round(exponential / 2 + (exponential / 2) * random()));
}
