import { RESOURCE_API_VERSIONS } from "../../common/api-versions";
import { type ErrorDetail, InvalidRequestContent } from "../../common/errors";
import { z } from "../../common/zod";
import { logLine } from "../../delivery/delivery-log";
import { instancePathSchema, twinsInstanceId } from "../../endpoints/endpoint-path";
import {
  CLOUD_EVENT_MEDIA_TYPES,
  type CloudEvent,
  cloudEventSchema,
  hasBothPayloads,
  ingestEventSchema,
  MAX_EVENT_ID_LENGTH,
} from "../../events/cloud-event";
import { isCloudEventQuick } from "../../events/cloud-event-check";
import { eventBytes, MAX_EVENT_BYTES } from "../../events/queue-message";
import {
  eventTraceIds,
  requestTraceContext,
  type TraceContext,
  withTraceContext,
} from "../../events/trace-context";
import { checkApiVersion } from "../api-version";
import { readJsonBody } from "../request-body";
import { jsonResponse } from "../responses";
import type { RouteOperation } from "../route";
import { parseOrThrow } from "../validation";

/**
 * Every event checked; a 400 lists each bad one by its index, e.g. target `[3].specversion`. With
 * a trace context, each event is given it unless it has a valid traceparent of its own, before
 * its size is checked.
 */
export function validateEvents(body: unknown, trace?: TraceContext): CloudEvent[] {
  const candidates = Array.isArray(body) ? body : [body];
  if (candidates.length === 0) throw new InvalidRequestContent("The batch holds no events.");
  const details: ErrorDetail[] = [];
  const events: CloudEvent[] = [];
  let invalid = 0;
  candidates.forEach((candidate, index) => {
    const checked = checkEvent(candidate, index, trace);
    if (Array.isArray(checked)) {
      invalid++;
      details.push(...checked);
    } else {
      events.push(checked);
    }
  });
  if (invalid > 0) {
    throw new InvalidRequestContent(
      `${invalid} of ${candidates.length} events are invalid; nothing was accepted.`,
      details[0]?.target,
      details,
    );
  }
  return events;
}

/** An id no Service Bus message can carry: the whole batch would be accepted, and this event never sent. */
function unsendableId(id: string, index: number): ErrorDetail {
  return {
    code: "EventIdTooLong",
    message: `Event ${index} (id ${JSON.stringify(`${id.slice(0, 32)}…`)}): its id is ${id.length} characters long; an event id can be at most ${MAX_EVENT_ID_LENGTH} (the Service Bus messageId limit), or the event could never be delivered.`,
    target: `[${index}].id`,
  };
}

/** An event with both `data` and `data_base64`: delivery would send the one and drop the other. */
function bothPayloads(index: number): ErrorDetail {
  return {
    code: "MutuallyExclusiveProperties",
    message: `Event ${index} has both 'data' and 'data_base64': an event carries its payload in one of them, never both (CloudEvents JSON format).`,
    target: `[${index}]`,
  };
}

/** The event (as sent, or with the trace context), or what is wrong with it. */
function checkEvent(candidate: unknown, index: number, trace?: TraceContext): CloudEvent | ErrorDetail[] {
  try {
    // The schema's own parse (for its issues) only when the quick check is not sure.
    if (!isCloudEventQuick(candidate)) parseOrThrow(cloudEventSchema, candidate, "The event");
    const event = candidate as CloudEvent;
    if (hasBothPayloads(event)) return [bothPayloads(index)];
    if (event.id.length > MAX_EVENT_ID_LENGTH) return [unsendableId(event.id, index)];
    const traced = trace === undefined ? event : withTraceContext(event, trace);
    if (eventBytes(traced) <= MAX_EVENT_BYTES) return traced;
    return [
      {
        code: "EventTooLarge",
        message: `Event ${index} is over the ${MAX_EVENT_BYTES}-byte limit of one event${traced === event ? "" : " (with the traceparent ingest gives it)"}.`,
        target: `[${index}]`,
      },
    ];
  } catch (error) {
    if (!(error instanceof InvalidRequestContent)) throw error;
    return error.details.map((detail) => ({
      ...detail,
      message: `Event ${index}: ${detail.message}`,
      target: detail.target ? `[${index}].${detail.target}` : `[${index}]`,
    }));
  }
}

export const ingestOperation: RouteOperation = {
  doc: {
    summary: "Ingest CloudEvents for a twins instance; 202 once they are durably queued",
    tag: "TwinEvents",
    pathParameters: instancePathSchema,
    apiVersions: RESOURCE_API_VERSIONS,
    requestBody: {
      schema: z.union([ingestEventSchema, z.array(ingestEventSchema).min(1)]),
      example: [
        {
          id: "evt-1",
          source: "/factory/line-1",
          specversion: "1.0",
          type: "Microsoft.DigitalTwins.Twin.Update",
          time: "2026-11-22T08:00:00Z",
          data: { temperature: 21.5 },
        },
      ],
      contentTypes: CLOUD_EVENT_MEDIA_TYPES,
    },
    responses: [
      {
        status: 202,
        description: "Every event is on the twin-events queue",
        schema: z.object({ accepted: z.number().int().positive() }),
        example: { accepted: 1 },
      },
    ],
    errors: [400, 413, 415],
  },
  handler: async (request, context, { eventPublisher }) => {
    checkApiVersion(request, RESOURCE_API_VERSIONS);
    const instance = parseOrThrow(instancePathSchema, request.params);
    const body = await readJsonBody(request, CLOUD_EVENT_MEDIA_TYPES);
    // Every event leaves with a valid traceparent: its own, else the request's, else a new one.
    const trace = requestTraceContext(request.headers.get("traceparent"), request.headers.get("tracestate"));
    const events = validateEvents(body, trace);
    const accepted = await eventPublisher.publish(twinsInstanceId(instance), events);
    // Counted by the request rows; a line per request only at debug, for looking into one.
    context.debug(
      logLine("twin events accepted:", {
        instance: twinsInstanceId(instance),
        events: accepted,
        traceIds: eventTraceIds(events),
      }),
    );
    return jsonResponse(202, { accepted });
  },
};
