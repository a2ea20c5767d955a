import { z } from "zod";
import { parseConnectionString } from "./connection-string";
import { deadLetterProblems } from "./dead-letter-secret";

const connectionStringSchema = z.string().superRefine((text, ctx) => {
  const result = parseConnectionString(text);
  if (!result.ok) for (const problem of result.problems) ctx.addIssue({ code: "custom", message: problem });
});

const deadLetterSecretSchema = z.string().superRefine((text, ctx) => {
  for (const problem of deadLetterProblems(text)) ctx.addIssue({ code: "custom", message: problem });
});

/** PUT body; `id`, `name` and `twinsInstanceId` may be echoed back, only with their current values. */
export const endpointPutSchema = z.strictObject({
  queuePrimaryConnectionString: connectionStringSchema,
  queueSecondaryConnectionString: connectionStringSchema,
  deadLetterStorageSecret: deadLetterSecretSchema.optional(),
  twinsInstanceId: z.string().optional(),
  name: z.string().optional(),
  id: z.string().optional(),
});

/** PATCH body: any subset; `deadLetterStorageSecret: null` removes the dead-letter location. */
export const endpointPatchSchema = endpointPutSchema.partial().extend({
  deadLetterStorageSecret: deadLetterSecretSchema.nullable().optional(),
});

/** What callers see: secrets masked. */
export const queueEndpointSchema = z.object({
  id: z.string(),
  name: z.string(),
  twinsInstanceId: z.string(),
  queuePrimaryConnectionString: z.string(),
  queueSecondaryConnectionString: z.string(),
  deadLetterStorageSecret: z.string().optional(),
});

/** The secrets of one endpoint, sealed together at rest. */
export const endpointSecretsSchema = z.object({
  queuePrimaryConnectionString: z.string(),
  queueSecondaryConnectionString: z.string(),
  deadLetterStorageSecret: z.string().optional(),
});

export type EndpointPut = z.infer<typeof endpointPutSchema>;
export type EndpointPatch = z.infer<typeof endpointPatchSchema>;
export type QueueEndpoint = z.infer<typeof queueEndpointSchema>;
export type EndpointSecrets = z.infer<typeof endpointSecretsSchema>;
