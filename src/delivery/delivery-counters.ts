/** What became of the events of one invocation; logged once per invocation. */
export interface DeliveryCounters {
  delivered: number;
  retried: number;
  deadLettered: number;
  poisoned: number;
  discarded: number;
  /** Events that the instance's event routes let through to none of its endpoints. */
  unrouted: number;
}

export function emptyCounters(): DeliveryCounters {
  return { delivered: 0, retried: 0, deadLettered: 0, poisoned: 0, discarded: 0, unrouted: 0 };
}

/** Whether any event of the invocation was not delivered or left unrouted: retried, dead-lettered, poisoned or discarded. */
export function anythingFailed(counters: DeliveryCounters): boolean {
  return counters.retried + counters.deadLettered + counters.poisoned + counters.discarded > 0;
}

export function formatCounters(counters: DeliveryCounters): string {
  return Object.entries(counters)
    .map(([name, count]) => `${name}=${count}`)
    .join(" ");
}
