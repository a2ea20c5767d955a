import { RESOURCE_API_VERSIONS } from "../../common/api-versions";
import { z } from "../../common/zod";
import { RESEAL_LISTED } from "../../endpoints/endpoint-service";
import { checkApiVersion } from "../api-version";
import { JSON_ONLY, readOptionalJsonBody } from "../request-body";
import { jsonResponse } from "../responses";
import type { RouteOperation } from "../route";
import { parseOrThrow } from "../validation";

export const resealRequestSchema = z
  .strictObject({
    dryRun: z
      .boolean()
      .optional()
      .describe(
        "Write nothing: only report which endpoints are sealed under a key other than the current one.",
      ),
  })
  .describe("The body may be left out: re-seal everything.");

const keyId = z
  .string()
  .describe("A key's fingerprint: the first 8 bytes of its SHA-256, in hex (never the key).");

export const resealResultSchema = z
  .object({
    currentKeyId: keyId,
    scanned: z.number().int().nonnegative().describe("Endpoints stored when the call started."),
    resealed: z.number().int().nonnegative().describe("Endpoints this call re-sealed under the current key."),
    alreadyCurrent: z
      .number()
      .int()
      .nonnegative()
      .describe("Endpoints already under the current key when read."),
    writtenMeanwhile: z
      .number()
      .int()
      .nonnegative()
      .describe(
        "Endpoints written while the call ran (by their owner, or re-sealed by a call on another host), found under the current key when read again: the other write won.",
      ),
    deleted: z.number().int().nonnegative().describe("Endpoints deleted while the call ran."),
    remaining: z
      .record(z.string(), z.number().int().positive())
      .describe(
        "Read at the end of the call: how many endpoints are still sealed under each other key (by fingerprint). Empty: no endpoint needs an old key, which may then leave SECRETS_ENCRYPTION_PREVIOUS_KEYS (mind the dead-letter marks: docs/operations.md).",
      ),
    remainingEndpoints: z
      .array(
        z.object({
          id: z.string().describe("The endpoint's id."),
          keyId,
          reason: z
            .enum(["KeyMissing", "Altered", "RunAgain", "DryRun"])
            .describe(
              "KeyMissing: sealed under a key this deployment lacks (configure it in SECRETS_ENCRYPTION_PREVIOUS_KEYS, or have the owner PUT the endpoint again). Altered: the stored secrets fail authentication (the owner must PUT the endpoint again). RunAgain: written under an old key while the call ran, by a host still sealing with it. DryRun: not attempted.",
            ),
        }),
      )
      .describe(`The endpoints counted in \`remaining\`, the first ${RESEAL_LISTED}.`),
  })
  .describe(
    "What the call did and what is left on old keys: counts, ids and key fingerprints, never a secret.",
  );

export const resealOperation: RouteOperation = {
  doc: {
    summary:
      "Re-seal every endpoint's secrets under the current encryption key (key rotation), and report what is left on other keys",
    description:
      "An operator's action of a key rotation (docs/operations.md): re-encrypts each stored endpoint's secrets under SECRETS_ENCRYPTION_KEY, " +
      "each document replaced only on the version it was read at, so a write by the endpoint's owner meanwhile wins. Safe to repeat and to run on " +
      "several hosts at once. It acts on `/`.",
    tag: "QueueEndpoint",
    apiVersions: RESOURCE_API_VERSIONS,
    requestBody: {
      schema: resealRequestSchema,
      example: { dryRun: false },
      contentTypes: JSON_ONLY,
      optional: true,
    },
    responses: [
      {
        status: 200,
        description:
          "Every stored endpoint was looked at. `remaining` is empty when no endpoint needs an old key any more.",
        schema: resealResultSchema,
        example: {
          currentKeyId: "4f1c2a9e7b3d8c60",
          scanned: 12,
          resealed: 10,
          alreadyCurrent: 1,
          writtenMeanwhile: 0,
          deleted: 0,
          remaining: { "9a0b1c2d3e4f5a6b": 1 },
          remainingEndpoints: [
            {
              id: "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/plant/endpoints/orders",
              keyId: "9a0b1c2d3e4f5a6b",
              reason: "KeyMissing",
            },
          ],
        },
      },
    ],
    errors: [400, 403, 413, 415],
  },
  handler: async (request, _context, { endpoints }) => {
    checkApiVersion(request, RESOURCE_API_VERSIONS);
    // Only a body left out stands for `{}`: one sent is read as sent, so JSON null is a 400.
    const sent = await readOptionalJsonBody(request, JSON_ONLY);
    const body = parseOrThrow(resealRequestSchema, sent === undefined ? {} : sent);
    return jsonResponse(200, await endpoints.reseal({ dryRun: body.dryRun ?? false }));
  },
};
