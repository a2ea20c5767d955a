import { type Attributes, type Meter, type MeterProvider, metrics } from "@opentelemetry/api";

/** The meter delivery's instruments belong to; also the service name in Application Insights. */
export const DELIVERY_METER = "twin-resource-service";

/**
 * Delivery metrics per endpoint, through the OpenTelemetry API: whatever MeterProvider is
 * registered globally gets them (Azure Monitor's in Azure, see functions/lib/telemetry.ts; an
 * in-memory one in tests), and without one every call is a no-op. Unlike the tracer, the API's
 * global meter is no proxy: instruments made before a provider is registered stay no-ops. So they
 * are made on first use, and again should the global provider change.
 *
 * Attributes are the instance id and the endpoint name only: never a connection string or an
 * event id (unbounded cardinality).
 */
function createInstruments(meter: Meter) {
  return {
    delivered: meter.createCounter("twin_events.delivered", {
      description: "Events the endpoint's topic acknowledged",
      unit: "{event}",
    }),
    retried: meter.createCounter("twin_events.retried", {
      description: "Events whose send failed and were scheduled for another attempt",
      unit: "{event}",
    }),
    deadLettered: meter.createCounter("twin_events.dead_lettered", {
      description: "Events written to the endpoint's dead-letter container",
      unit: "{event}",
    }),
    poisoned: meter.createCounter("twin_events.poisoned", {
      description: "Events put on the poison queue",
      unit: "{event}",
    }),
    unrouted: meter.createCounter("twin_events.unrouted", {
      description: "Events that the instance's event routes let through to none of its endpoints",
      unit: "{event}",
    }),
    latency: meter.createHistogram("twin_events.delivery_latency", {
      description: "From ingest (the message's receivedAt) to the topic's acknowledgement of the send",
      unit: "ms",
    }),
  };
}

let current: { provider: MeterProvider; instruments: ReturnType<typeof createInstruments> } | undefined;

function instruments(): ReturnType<typeof createInstruments> {
  const provider = metrics.getMeterProvider();
  if (current?.provider !== provider)
    current = { provider, instruments: createInstruments(provider.getMeter(DELIVERY_METER)) };
  return current.instruments;
}

export type DeliveryOutcome = "delivered" | "retried" | "deadLettered" | "poisoned" | "unrouted";

/** The attributes of one endpoint's metrics; `endpoint` is absent for events no endpoint was chosen for. */
export function endpointAttributes(instance: string, endpoint?: string): Attributes {
  return endpoint === undefined
    ? { "twins.instance_id": instance }
    : { "twins.instance_id": instance, "twins.endpoint_name": endpoint };
}

export function countEvents(outcome: DeliveryOutcome, count: number, attributes: Attributes): void {
  if (count > 0) instruments()[outcome].add(count, attributes);
}

/** One latency per event delivered, from `receivedAt` to `ackedAt` (never below 0: clocks drift). */
export function recordLatency(
  receivedAt: string,
  ackedAt: Date,
  events: number,
  attributes: Attributes,
): void {
  const start = Date.parse(receivedAt);
  if (Number.isNaN(start)) return;
  const ms = Math.max(0, ackedAt.getTime() - start);
  const { latency } = instruments();
  for (let i = 0; i < events; i++) latency.record(ms, attributes);
}
