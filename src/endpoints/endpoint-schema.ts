import { serverSet } from "../common/server-set";
import { systemDataSchema } from "../common/system-data";
import { z } from "../common/zod";
import { type ConnectionString, parseConnectionString } from "./connection-string";
import { type DeadLetterSecret, parseDeadLetterSecret } from "./dead-letter-secret";
import { PLAIN_AUTHORITY_PATTERN } from "./host-names";

/**
 * The secrets are parsed here, once: a body carries them on as typed values, from which the
 * service checks hosts and topic, seals the text and masks the response.
 */
const KEYS = ["Endpoint", "SharedAccessKeyName", "SharedAccessKey", "EntityPath", "UseDevelopmentEmulator"];
const PART =
  "(?:Endpoint=sb://[A-Za-z0-9.-]+(?::[0-9]{1,5})?/?|SharedAccessKeyName=[A-Za-z0-9._-]{1,256}" +
  "|SharedAccessKey=[A-Za-z0-9+/=_-]{1,256}|EntityPath=[A-Za-z0-9][A-Za-z0-9._/-]{0,259}" +
  "|UseDevelopmentEmulator=(?:true|false))";

/**
 * What the parser takes, as far as patterns can say it (for the API description): parts of the
 * known keys without blanks, the four required ones each present, and no key twice. Patterns
 * without lookarounds or back-references, which not every engine has: a JSON Schema `allOf` for
 * what must hold and a `not` for the repeats. The host rules (a Service Bus host, no IP literal) are prose.
 */
export const CONNECTION_STRING_SCHEMA = {
  allOf: [
    { pattern: `^${PART}?(?:;${PART}?)*$` },
    ...KEYS.slice(0, 4).map((key) => ({ pattern: `(?:^|;)${key}=` })),
  ],
  not: { anyOf: KEYS.map((key) => ({ pattern: `(?:^|;)${key}=.*;${key}=` })) },
};

const connectionStringText = z.string().meta({
  ...CONNECTION_STRING_SCHEMA,
  description:
    "A Service Bus connection string: exactly Endpoint (sb://<namespace host>/, an Azure Service Bus host, " +
    "no IP literal; loopback hosts only where ALLOW_LOOPBACK_ENDPOINTS is true), SharedAccessKeyName, SharedAccessKey and EntityPath " +
    "(UseDevelopmentEmulator for a local emulator only), each once, case-sensitive, without blanks. " +
    "Answered with SharedAccessKey masked as ***.",
});

const deadLetterText = z.string().meta({
  // The host as the server reads it (host-names.ts): ASCII only, so no look-alike host passes.
  pattern: `^https?://${PLAIN_AUTHORITY_PATTERN}/[^?#\\s]+\\?[^#\\s]+$`,
  description:
    "The dead-letter blob container: https://<account>.blob.core.windows.net/<container>?<SAS token>, with no " +
    "user information and no IP literal. Where ALLOW_LOOPBACK_ENDPOINTS is true (local runs, never in Azure), loopback " +
    "hosts (127.0.0.0/8, [::1], localhost) are admitted too, over http, path-style (/<account>/<container>). The SAS " +
    "token carries sig= once and sp= once with create and write (sp=cw; sp=rcwl to redeliver), and has not expired. " +
    "Answered with the query masked as ***.",
});

const connectionStringSchema = connectionStringText.transform((text, ctx): ConnectionString => {
  const result = parseConnectionString(text);
  if (result.ok) return result.value;
  for (const problem of result.problems) ctx.addIssue({ code: "custom", message: problem });
  return z.NEVER;
});

const deadLetterSecretSchema = deadLetterText.transform((text, ctx): DeadLetterSecret => {
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
  twinsInstanceId: serverSet("The twins instance's id, from the path").optional(),
  name: serverSet("The endpoint's name, from the path").optional(),
  id: serverSet("The endpoint's id: its URL path").optional(),
  systemData: systemDataSchema.optional(),
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
  systemData: systemDataSchema,
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
