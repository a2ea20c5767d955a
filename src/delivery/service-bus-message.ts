import type { ServiceBusMessage } from "@azure/service-bus";
import type { CloudEvent } from "../events/cloud-event";
import { eventTraceContext } from "../events/trace-context";

/**
 * One event as one Service Bus message, the way Azure Digital Twins routes them: the body is the
 * event's data, the CloudEvents attributes travel as `cloudEvents:*` application properties. The
 * event's trace context travels as `traceparent` (and `tracestate`) and as `Diagnostic-Id`, the
 * property the Azure SDKs read it from.
 */
export function toServiceBusMessage(event: CloudEvent): ServiceBusMessage {
  const applicationProperties: Record<string, string> = {
    "cloudEvents:id": event.id,
    "cloudEvents:source": event.source,
    "cloudEvents:specversion": event.specversion,
    "cloudEvents:type": event.type,
  };
  if (event.time !== undefined) applicationProperties["cloudEvents:time"] = event.time;
  if (event.subject !== undefined) applicationProperties["cloudEvents:subject"] = event.subject;
  if (event.dataschema !== undefined) applicationProperties["cloudEvents:dataschema"] = event.dataschema;
  const trace = eventTraceContext(event);
  applicationProperties["Diagnostic-Id"] = trace.traceparent;
  applicationProperties.traceparent = trace.traceparent;
  if (trace.tracestate !== undefined) applicationProperties.tracestate = trace.tracestate;
  return {
    body: event.data_base64 !== undefined ? Buffer.from(event.data_base64, "base64") : (event.data ?? null),
    contentType: event.datacontenttype ?? "application/json",
    messageId: event.id,
    applicationProperties,
  };
}
