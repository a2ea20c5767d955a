import { RESOURCE_API_VERSIONS } from "../../common/api-versions";
import { type ErrorDetail, invalidRequest } from "../../common/errors";
import { z } from "../../common/zod";
import { instancePathSchema } from "../../endpoints/endpoint-path";
import { filterSchema } from "../../event-routes/event-route-schema";
import { parseFilter } from "../../event-routes/filter";
import { explainFilter } from "../../event-routes/filter-explain";
import {
  type CloudEvent,
  hasBothPayloads,
  ingestEventSchema,
  MAX_EVENT_ID_LENGTH,
} from "../../events/cloud-event";
import { eventBytes, MAX_EVENT_BYTES } from "../../events/queue-message";
import { checkApiVersion } from "../api-version";
import { JSON_ONLY, readJsonObjectBody } from "../request-body";
import { jsonResponse } from "../responses";
import type { RouteOperation } from "../route";
import { parseOrThrow } from "../validation";

/**
 * POST {twinsInstanceId}/testEventRouteFilter: whether a filter lets an event through, judged by
 * the parser routes are written with (the same 400 for a bad filter as a route PUT) and by
 * delivery's evaluation; when not, which comparison decided it. Nothing is stored or sent.
 */
export const testEventRouteFilterRequestSchema = z.strictObject({
  filter: filterSchema,
  event: ingestEventSchema.meta({
    description:
      "The event to try the filter on: a CloudEvents 1.0 event in the JSON format, as ingest (POST …/events) takes one. It is not sent.",
  }),
});

export const testEventRouteFilterResultSchema = z.object({
  matches: z
    .boolean()
    .meta({ description: "Whether the filter lets the event through, as delivery would decide it." }),
  reason: z
    .string()
    .optional()
    .meta({
      description:
        "Present when matches is false: the comparison (or function, or constant) that decided it and what the event holds there, " +
        "e.g. `type = 'Twin.Update' was false: the event's type is 'Twin.Create'`. For AND, its first false operand; for OR, each " +
        "alternative; for NOT, its operand, which was true. Words for people, not a format to parse.",
    }),
});

/** What ingest would refuse in an event its schema takes (src/http/routes/ingest-routes.ts). */
function eventProblems(event: CloudEvent): ErrorDetail[] {
  if (hasBothPayloads(event)) {
    return [
      {
        code: "MutuallyExclusiveProperties",
        message:
          "The event has both 'data' and 'data_base64': an event carries its payload in one of them, never both (CloudEvents JSON format).",
        target: "event",
      },
    ];
  }
  if (event.id.length > MAX_EVENT_ID_LENGTH) {
    return [
      {
        code: "EventIdTooLong",
        message: `The event's id is ${event.id.length} characters long; an event id can be at most ${MAX_EVENT_ID_LENGTH} (the Service Bus messageId limit).`,
        target: "event.id",
      },
    ];
  }
  if (eventBytes(event) > MAX_EVENT_BYTES) {
    return [
      {
        code: "EventTooLarge",
        message: `The event is over the ${MAX_EVENT_BYTES}-byte limit of one event.`,
        target: "event",
      },
    ];
  }
  return [];
}

export const testEventRouteFilterOperation: RouteOperation = {
  doc: {
    summary: "Try an event-route filter on an event: whether it lets the event through, and if not, why",
    description:
      "Parses the filter as a route PUT does (a filter it refuses is the same 400, target `filter`, with the same message) and " +
      "evaluates it on the event as delivery does. No route is written and no event is sent or queued; the instance's routes " +
      "and endpoints are not read. Authorized as reading the instance's event routes.",
    tag: "EventRoute",
    pathParameters: instancePathSchema,
    apiVersions: RESOURCE_API_VERSIONS,
    requestBody: {
      schema: testEventRouteFilterRequestSchema,
      example: {
        filter: "type = 'Microsoft.DigitalTwins.Twin.Update' AND $body.temperature > 30",
        event: {
          id: "evt-1",
          source: "/factory/line-1",
          specversion: "1.0",
          type: "Microsoft.DigitalTwins.Twin.Update",
          data: { temperature: 21.5 },
        },
      },
      contentTypes: JSON_ONLY,
    },
    responses: [
      {
        status: 200,
        description:
          "The filter's verdict on the event (a filter that lets it through, or not, is a 200 either way)",
        schema: testEventRouteFilterResultSchema,
        example: {
          matches: false,
          reason: "$body.temperature > 30 was false: the event's $body.temperature is 21.5",
        },
      },
    ],
    errors: [400, 413, 415],
  },
  handler: async (request) => {
    checkApiVersion(request, RESOURCE_API_VERSIONS);
    parseOrThrow(instancePathSchema, request.params);
    const body = await readJsonObjectBody(request, JSON_ONLY);
    const { filter } = parseOrThrow(testEventRouteFilterRequestSchema, body);
    // The event as sent (as ingest queues it), not as the schema rebuilt it.
    const event = body.event as CloudEvent;
    const problems = eventProblems(event);
    if (problems.length > 0) throw invalidRequest(problems);
    return jsonResponse(200, explainFilter(parseFilter(filter), event));
  },
};
