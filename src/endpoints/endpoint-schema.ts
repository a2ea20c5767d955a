import { z } from "zod";
import { type ConnectionString, parseConnectionString } from "./connection-string";
import { type DeadLetterSecret, parseDeadLetterSecret } from "./dead-letter-secret";

/**
 * The secrets are parsed here, once: a body carries them on as typed values, from which the
 * service checks hosts and topic, seals the text and masks the response.
 */
const connectionStringSchema = z.string().transform((text, ctx): ConnectionString => {
  const result = parseConnectionString(text);
  if (result.ok) return result.value;
  for (const problem of result.problems) ctx.addIssue({ code: "custom", message: problem });
  return z.NEVER;
});

const deadLetterSecretSchema = z.string().transform((text, ctx): DeadLetterSecret => {
  const result = parseDeadLetterSecret(text);
  if (result.ok) return result.value;
  for (const problem of result.problems) ctx.addIssue({ code: "custom", message: problem });
  return z.NEVER;
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

export type EndpointPut = z.output<typeof endpointPutSchema>;
export type EndpointPatch = z.output<typeof endpointPatchSchema>;
/** A body as sent (the secrets still text): the API description's examples. */
export type EndpointPutInput = z.input<typeof endpointPutSchema>;
export type EndpointPatchInput = z.input<typeof endpointPatchSchema>;
export type QueueEndpoint = z.infer<typeof queueEndpointSchema>;
export type EndpointSecrets = z.infer<typeof endpointSecretsSchema>;
