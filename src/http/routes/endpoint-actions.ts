import { RESOURCE_API_VERSIONS } from "../../common/api-versions";
import { DEAD_LETTER_REASONS } from "../../common/dead-letter-selection";
import { InvalidRequestContent } from "../../common/errors";
import { z } from "../../common/zod";
import { endpointPathSchema, twinsInstanceId } from "../../endpoints/endpoint-path";
import { checkApiVersion } from "../api-version";
import { JSON_ONLY, readOptionalJsonBody } from "../request-body";
import { jsonResponse } from "../responses";
import type { RouteOperation } from "../route";
import { parseOrThrow } from "../validation";

export const redeliverRequestSchema = z
  .strictObject({
    from: z.iso
      .datetime({ offset: true })
      .optional()
      .describe(
        "Redeliver dead letters written at or after this time (ISO 8601). Default: no lower bound. Must not be later than `to` (compared as instants, offsets applied): 400 otherwise.",
      ),
    to: z.iso
      .datetime({ offset: true })
      .optional()
      .describe(
        "Redeliver dead letters written at or before this time (ISO 8601). Default: no upper bound. Must not be earlier than `from`.",
      ),
    reason: z
      .enum(DEAD_LETTER_REASONS)
      .optional()
      .describe(
        "Redeliver only dead letters whose `deadletterreason` is this value, compared exactly (letter case included); the others are left alone and not counted. Default: any reason.",
      ),
    force: z
      .boolean()
      .optional()
      .describe("Also redeliver dead letters marked `redelivered` by an earlier run. Default false."),
  })
  .describe(
    "Which dead letters to redeliver; the body may be left out (all not yet redelivered). `from` later than `to` is a 400 (a rule JSON Schema cannot state).",
  );

export const redeliverResultSchema = z
  .object({
    requeued: z.number().int().nonnegative().describe("Events put back on the queue for this endpoint."),
    skipped: z
      .number()
      .int()
      .nonnegative()
      .describe(
        "Blobs in the window left alone: marked `redelivered` (and `force` not given), taken by another call running at once, or not a dead letter the service wrote for this endpoint in this container (those are logged; a copy from another container is one).",
      ),
    failed: z
      .number()
      .int()
      .nonnegative()
      .describe(
        "Dead letters that could not be queued (the service's own queue failed) or held no event; repeat the call to retry them. A store that fails, refuses or does not answer is never counted here: it ends the call with 503 or 409.",
      ),
  })
  .describe("What the run did; repeat it to retry the failed ones.");

export const redeliverOperation: RouteOperation = {
  doc: {
    summary:
      "Re-queue the endpoint's dead-lettered events (optionally those written from `from` to `to`) for delivery to this endpoint only",
    tag: "QueueEndpoint",
    pathParameters: endpointPathSchema,
    apiVersions: RESOURCE_API_VERSIONS,
    requestBody: {
      schema: redeliverRequestSchema,
      example: {
        from: "2026-11-22T00:00:00Z",
        to: "2026-11-22T12:00:00Z",
        reason: "MaxDeliveryAttemptsExceeded",
        force: false,
      },
      contentTypes: JSON_ONLY,
      optional: true,
    },
    responses: [
      {
        status: 200,
        description:
          "The run got to the end of the dead letters: each requeued blob was claimed, then marked with `redelivered` metadata; nothing is deleted. The events go out with the endpoint's settings as read for this call. A run that reaches its 60 s deadline first, or meets a store that fails or does not answer, answers 503 with Retry-After, saying how far it got",
        schema: redeliverResultSchema,
        example: { requeued: 3, skipped: 1, failed: 0 },
      },
    ],
    errors: [400, 404, 409, 413, 415],
  },
  handler: async (request, context, { endpoints, deadLetterRedelivery }) => {
    checkApiVersion(request, RESOURCE_API_VERSIONS);
    const path = parseOrThrow(endpointPathSchema, request.params);
    // Only a body left out stands for `{}`: one sent is read as sent, so JSON null is a 400.
    const sent = await readOptionalJsonBody(request, JSON_ONLY);
    const body = parseOrThrow(redeliverRequestSchema, sent === undefined ? {} : sent);
    const from = body.from === undefined ? undefined : new Date(body.from);
    const to = body.to === undefined ? undefined : new Date(body.to);
    if (from !== undefined && to !== undefined && from.getTime() > to.getTime()) {
      throw new InvalidRequestContent("'from' must not be later than 'to'.", "from");
    }
    const endpoint = await endpoints.getForDelivery(path);
    const window = {
      ...(from !== undefined && { from }),
      ...(to !== undefined && { to }),
      ...(body.reason !== undefined && { reason: body.reason }),
      force: body.force ?? false,
    };
    // Read from the store just now: the requeued events carry its version (no cached settings).
    const counts = await deadLetterRedelivery.redeliver(twinsInstanceId(path), endpoint, window, context);
    return jsonResponse(200, counts);
  },
};
