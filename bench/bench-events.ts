import type { CloudEvent } from "../src/events/cloud-event";
import type { LoopbackClient } from "./http-client";

/** The bench's twin events and how it posts them: no stack imports, so the ingest driver process stays small. */

/** `count` events with ids `${prefix}-${first}` onwards. */
export function makeEvents(count: number, prefix: string, first = 0): CloudEvent[] {
  return Array.from({ length: count }, (_, offset) => first + offset).map((index) => ({
    id: `${prefix}-${index}`,
    source: "/bench/twins",
    specversion: "1.0",
    type: "Microsoft.DigitalTwins.Twin.Update",
    time: new Date().toISOString(),
    data: {
      twinId: `twin-${index % 100}`,
      patch: [{ op: "replace", path: "/temperature", value: 20 + (index % 10) }],
    },
  }));
}

export interface IngestShape {
  /** Events per ingest request. */
  perRequest: number;
  /** Requests in flight at once. */
  inFlight: number;
}

/** POSTs one batch of events to an instance's /events; throws unless it is accepted (202). */
export async function postEvents(
  client: LoopbackClient,
  functionKey: string,
  instance: string,
  events: CloudEvent[],
): Promise<void> {
  const response = await client.request("POST", `${instance}/events`, {
    headers: { "x-functions-key": functionKey, "content-type": "application/cloudevents-batch+json" },
    body: JSON.stringify(events),
    keepBody: (status) => status !== 202,
  });
  if (response.status !== 202) throw new Error(`ingest: ${response.status} ${response.body ?? ""}`);
}

/**
 * Posts the events in requests of `shape.perRequest`, `shape.inFlight` at a time, in order, through
 * the bench's keep-alive node:http client (http-client.ts), as every other part of the bench sends:
 * fetch spends about twice its CPU a request, which the delivery part would count with the service's.
 */
export async function postInShape(
  client: LoopbackClient,
  functionKey: string,
  instance: string,
  events: CloudEvent[],
  shape: IngestShape,
): Promise<void> {
  const requests = Math.ceil(events.length / shape.perRequest);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(shape.inFlight, requests) }, async () => {
      while (next < requests) {
        const index = next++;
        const slice = events.slice(index * shape.perRequest, (index + 1) * shape.perRequest);
        await postEvents(client, functionKey, instance, slice);
      }
    }),
  );
}
