import { serverSet } from "../common/server-set";
import { systemDataSchema } from "../common/system-data";
import { z } from "../common/zod";
import { type ConnectionString, ENTITY_PATH, parseConnectionString } from "./connection-string";
import { type DeadLetterSecret, parseDeadLetterSecret } from "./dead-letter-secret";
import {
  ADMITTED_HOST_NAME_PATTERN,
  LOOPBACK_AUTHORITY_PATTERN,
  PLAIN_AUTHORITY_PATTERN,
} from "./host-names";
import { managedIdentitySchema } from "./managed-identity";

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

/** `id`, `name` and `twinsInstanceId` may be echoed back, only with their current values. */
const echoes = {
  twinsInstanceId: serverSet("The twins instance's id, from the path").optional(),
  name: serverSet("The endpoint's name, from the path").optional(),
  id: serverSet("The endpoint's id: its URL path").optional(),
  systemData: systemDataSchema.optional(),
};

const KEY_BASED = "KeyBased";
const IDENTITY_BASED = "IdentityBased";

/** A field of the other kind: named in the 400 with the kind it belongs to (a mix is never guessed at). */
function otherKind(kind: string) {
  const rule = `belongs to ${kind} endpoints: send authenticationType ${kind} with it, or leave it out`;
  return z
    .never({ error: rule })
    .optional()
    .meta({ description: `Not sent: it ${rule}.` });
}

const endpointUriText = z
  .string()
  .max(300)
  .meta({
    // What some deployment admits (host-names.ts): a host name without a port, or a loopback host.
    pattern: `^sb://(?:${ADMITTED_HOST_NAME_PATTERN}|${LOOPBACK_AUTHORITY_PATTERN})/?$`,
    description:
      "The Service Bus namespace: sb://<namespace host>/ and nothing more (no user information, port, path, query or fragment), an Azure Service Bus host (SERVICEBUS_HOST_SUFFIXES), no IP literal; loopback hosts, with a port or not, only where ALLOW_LOOPBACK_ENDPOINTS is true.",
  });

const entityPathText = z.string().meta({
  pattern: ENTITY_PATH.source,
  description: "The topic events are sent to: letters, digits, '.', '-', '_', '/'; at most 260.",
});

const deadLetterUriText = z
  .string()
  .max(2048)
  .meta({
    // A host name over https without a port; http and a port for a loopback host only.
    pattern: `^(?:https://${ADMITTED_HOST_NAME_PATTERN}|https?://${LOOPBACK_AUTHORITY_PATTERN})/[^?#\\s]+$`,
    description:
      "The dead-letter blob container: https://<account>.blob.core.windows.net/<container> (STORAGE_HOST_SUFFIXES), with no user information, port, query or fragment: no SAS token, the endpoint's identity is its credential. Where ALLOW_LOOPBACK_ENDPOINTS is true, loopback hosts path-style (/<account>/<container>) too, over http or https, with a port or not.",
  });

const keyBasedFields = {
  queuePrimaryConnectionString: connectionStringSchema,
  queueSecondaryConnectionString: connectionStringSchema,
  deadLetterStorageSecret: deadLetterSecretSchema.optional(),
};

const identityBasedFields = {
  endpointUri: endpointUriText,
  entityPath: entityPathText,
  deadLetterUri: deadLetterUriText.optional(),
  identity: managedIdentitySchema.optional(),
};

const keyBasedPutSchema = z.strictObject({
  authenticationType: z
    .literal(KEY_BASED)
    .optional()
    .meta({ description: "KeyBased (the default): the endpoint's connection strings are its credentials." }),
  ...keyBasedFields,
  endpointUri: otherKind(IDENTITY_BASED),
  entityPath: otherKind(IDENTITY_BASED),
  deadLetterUri: otherKind(IDENTITY_BASED),
  identity: otherKind(IDENTITY_BASED),
  ...echoes,
});

const identityBasedPutSchema = z.strictObject({
  authenticationType: z.literal(IDENTITY_BASED).meta({
    description: "IdentityBased: the service sends and dead-letters with a managed identity; no secret.",
  }),
  ...identityBasedFields,
  queuePrimaryConnectionString: otherKind(KEY_BASED),
  queueSecondaryConnectionString: otherKind(KEY_BASED),
  deadLetterStorageSecret: otherKind(KEY_BASED),
  ...echoes,
});

/** PUT body: a KeyBased endpoint (authenticationType absent or KeyBased) or an IdentityBased one. */
export const endpointPutSchema = z.discriminatedUnion("authenticationType", [
  keyBasedPutSchema,
  identityBasedPutSchema,
]);

/**
 * A PATCH body of one kind, for the API description: `authenticationType`, when sent, is that kind,
 * and no field of the other kind is sent (checkPatchKind refuses one, even `null`, whatever the
 * stored endpoint's kind).
 */
function patchOfKind(kind: string, otherFields: readonly string[]) {
  return {
    properties: {
      authenticationType: { const: kind },
      ...Object.fromEntries(otherFields.map((field) => [field, false])),
    },
  };
}

/**
 * PATCH body: any subset of the fields of the endpoint's kind (the stored endpoint decides which,
 * endpoint-kinds.ts); `null` removes the dead-letter location. `authenticationType`, when sent,
 * must be the endpoint's. A body mixing the kinds' fields is refused whatever the endpoint's kind,
 * and the API description says so (an `anyOf` of the two kinds).
 */
export const endpointPatchSchema = z
  .strictObject({
    authenticationType: z.enum([KEY_BASED, IDENTITY_BASED]).optional(),
    queuePrimaryConnectionString: connectionStringSchema.optional(),
    queueSecondaryConnectionString: connectionStringSchema.optional(),
    deadLetterStorageSecret: deadLetterSecretSchema.nullable().optional(),
    endpointUri: endpointUriText.optional(),
    entityPath: entityPathText.optional(),
    deadLetterUri: deadLetterUriText.nullable().optional(),
    identity: managedIdentitySchema.optional(),
    ...echoes,
  })
  .meta({
    description:
      "The fields of the endpoint's kind to change. A body never mixes the kinds: fields of the other kind, or another authenticationType, are a 400.",
    anyOf: [
      patchOfKind(KEY_BASED, Object.keys(identityBasedFields)),
      patchOfKind(IDENTITY_BASED, Object.keys(keyBasedFields)),
    ],
  });

const resourceBase = {
  id: z.string(),
  name: z.string(),
  twinsInstanceId: z.string(),
};

/** What callers see: secrets masked; an identity-based endpoint has none. */
export const queueEndpointSchema = z.discriminatedUnion("authenticationType", [
  z.object({
    ...resourceBase,
    authenticationType: z.literal(KEY_BASED),
    queuePrimaryConnectionString: z.string(),
    queueSecondaryConnectionString: z.string(),
    deadLetterStorageSecret: z.string().optional(),
    systemData: systemDataSchema,
  }),
  z.object({
    ...resourceBase,
    authenticationType: z.literal(IDENTITY_BASED),
    endpointUri: z.string(),
    entityPath: z.string(),
    deadLetterUri: z.string().optional(),
    identity: managedIdentitySchema.optional(),
    systemData: systemDataSchema,
  }),
]);

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
export type KeyBasedEndpoint = Extract<QueueEndpoint, { authenticationType: "KeyBased" }>;
export type IdentityBasedEndpoint = Extract<QueueEndpoint, { authenticationType: "IdentityBased" }>;
export type AuthenticationType = QueueEndpoint["authenticationType"];
export type EndpointSecrets = z.infer<typeof endpointSecretsSchema>;
