import type * as pulumi from "@pulumi/pulumi";
import { autoName } from "../../client/auto-name";
import { parseEndpointId } from "../../client/resource-paths";
import type {
  EndpointAuthenticationType,
  EndpointIdentity,
  IdentityBasedQueueEndpointPatch,
  QueueEndpoint,
  QueueEndpointInput,
} from "../../client/types";
import { adoptEndpoint } from "./adopt-existing";
import { type EndpointSettingsInputs, identityKey, kindOf, shapeProblems } from "./endpoint-kinds";
import { diffFields, type FieldRoles } from "./field-diff";
import { keepKnownSecret, maskConnectionString, maskDeadLetterSecret } from "./masked-secrets";
import { connectionOutputs, type ServiceConnectionInputs, serviceClient } from "./service-connection";
import { type TwinsChildInputs, TwinsChildProvider } from "./twins-child-provider";

export type { EndpointSettingsInputs } from "./endpoint-kinds";

/** The inputs of a key-based endpoint that are secrets. */
export interface EndpointSecretsInputs {
  queuePrimaryConnectionString: string;
  queueSecondaryConnectionString: string;
  deadLetterStorageSecret?: string;
}

/**
 * `name` absent: `check` names the endpoint `<logicalName>-<7 random chars>`, once, and keeps that
 * name. `authenticationType` absent: `KeyBased`, with the connection strings required.
 */
export interface EndpointProviderInputs extends EndpointSettingsInputs, TwinsChildInputs {}

/** The state: `authenticationType` always set, and only the fields of that kind. */
export interface EndpointProviderOutputs extends EndpointSettingsInputs, ServiceConnectionInputs {
  twinsInstanceId: string;
  name: string;
  authenticationType: EndpointAuthenticationType;
}

/**
 * A new instance or name replaces the endpoint (another resource), and so does a new
 * `authenticationType`: the service refuses to change an endpoint's kind, so it is deleted and
 * created again under the same name (the id is the instance and the name only, so a replacement
 * that keeps them deletes first; `check` keeps the name). Everything else is written in place.
 */
export const ENDPOINT_FIELD_ROLES: FieldRoles = {
  replaces: ["twinsInstanceId", "name", "authenticationType"],
  updates: [
    "queuePrimaryConnectionString",
    "queueSecondaryConnectionString",
    "deadLetterStorageSecret",
    "endpointUri",
    "entityPath",
    "deadLetterUri",
    "identity",
    "serviceEndpoint",
    "serviceKey",
  ],
  identity: ["twinsInstanceId", "name"],
};

/** The request body of a PUT: the fields of the inputs' kind, and no other. */
function body(inputs: EndpointSettingsInputs): QueueEndpointInput {
  if (kindOf(inputs) === "IdentityBased") {
    return {
      authenticationType: "IdentityBased",
      endpointUri: inputs.endpointUri ?? "",
      entityPath: inputs.entityPath ?? "",
      ...(inputs.deadLetterUri !== undefined && { deadLetterUri: inputs.deadLetterUri }),
      ...(inputs.identity !== undefined && { identity: inputs.identity }),
    };
  }
  // As before the kinds existed: no authenticationType on the wire, the service's default.
  return {
    queuePrimaryConnectionString: inputs.queuePrimaryConnectionString ?? "",
    queueSecondaryConnectionString: inputs.queueSecondaryConnectionString ?? "",
    ...(inputs.deadLetterStorageSecret !== undefined && {
      deadLetterStorageSecret: inputs.deadLetterStorageSecret,
    }),
  };
}

/** The program's identity when it names the same one as the service's answer (absent = system-assigned). */
function knownIdentity(
  answered: EndpointIdentity | undefined,
  known: EndpointIdentity | undefined,
): EndpointIdentity | undefined {
  return identityKey(answered) === identityKey(known) ? known : answered;
}

/**
 * The outputs of an endpoint the service answered for: names as the service keeps them; for a
 * key-based one, secrets as the program knows them when the service's masked answer still matches
 * them (never the mask over a real value); an identity-based one as answered (nothing is masked),
 * its identity in the program's spelling when it names the same one.
 */
function outputs(
  endpoint: QueueEndpoint,
  known: Partial<EndpointSettingsInputs> & ServiceConnectionInputs,
): EndpointProviderOutputs {
  const common = { twinsInstanceId: endpoint.twinsInstanceId, name: endpoint.name };
  if (endpoint.authenticationType === "IdentityBased") {
    const identity = knownIdentity(endpoint.identity, known.identity);
    return {
      ...common,
      authenticationType: "IdentityBased",
      endpointUri: endpoint.endpointUri,
      entityPath: endpoint.entityPath,
      ...(endpoint.deadLetterUri !== undefined && { deadLetterUri: endpoint.deadLetterUri }),
      ...(identity !== undefined && { identity }),
      ...connectionOutputs(known),
    };
  }
  const primary = keepKnownSecret(
    endpoint.queuePrimaryConnectionString,
    known.queuePrimaryConnectionString,
    maskConnectionString,
  );
  const secondary = keepKnownSecret(
    endpoint.queueSecondaryConnectionString,
    known.queueSecondaryConnectionString,
    maskConnectionString,
  );
  const deadLetter = keepKnownSecret(
    endpoint.deadLetterStorageSecret,
    known.deadLetterStorageSecret,
    maskDeadLetterSecret,
  );
  return {
    ...common,
    authenticationType: "KeyBased",
    queuePrimaryConnectionString: primary ?? "",
    queueSecondaryConnectionString: secondary ?? "",
    ...(deadLetter !== undefined && { deadLetterStorageSecret: deadLetter }),
    ...connectionOutputs(known),
  };
}

function endpointRef(id: string): { twinsInstanceId: string; name: string } {
  const ref = parseEndpointId(id);
  if (!ref) throw new Error("The id is not a QueueEndpoint id ({twinsInstanceId}/endpoints/{name}).");
  return ref;
}

/** Props as compared: the default kind spelt out, an identity in one spelling per identity. */
function comparable(props: Partial<EndpointProviderInputs>): Record<string, unknown> {
  const kind = kindOf(props);
  return {
    ...props,
    authenticationType: kind,
    identity: kind === "IdentityBased" ? identityKey(props.identity) : undefined,
  };
}

/**
 * The PATCH of an identity-based endpoint: the fields that differ from the state, and no other, so
 * an unchanged user-assigned identity is not named again (naming one needs its assign action).
 * A dead-letter location the program dropped is removed (`null`); an identity it dropped is the
 * system-assigned one, which is what its absence means.
 */
export function identityPatch(
  olds: Partial<EndpointSettingsInputs>,
  news: EndpointSettingsInputs,
): IdentityBasedQueueEndpointPatch {
  const patch: IdentityBasedQueueEndpointPatch = {};
  if (news.endpointUri !== olds.endpointUri && news.endpointUri !== undefined)
    patch.endpointUri = news.endpointUri;
  if (news.entityPath !== olds.entityPath && news.entityPath !== undefined)
    patch.entityPath = news.entityPath;
  if (news.deadLetterUri !== olds.deadLetterUri) patch.deadLetterUri = news.deadLetterUri ?? null;
  if (identityKey(news.identity) !== identityKey(olds.identity)) {
    patch.identity = news.identity ?? { type: "SystemAssigned" };
  }
  return patch;
}

/**
 * CRUD for QueueEndpoint. The id is the endpoint's full resource path. A key-based endpoint's
 * update is a full PUT that must find the endpoint (If-Match: *): an absent dead-letter secret is
 * removed. An identity-based endpoint's update is a PATCH of what changed, that must find it too.
 */
export class QueueEndpointProvider
  extends TwinsChildProvider<
    QueueEndpointInput,
    QueueEndpoint,
    EndpointProviderInputs,
    EndpointProviderOutputs
  >
  implements pulumi.dynamic.ResourceProvider<EndpointProviderInputs, EndpointProviderOutputs>
{
  constructor() {
    super({
      collection: (client) => client.endpoints,
      ref: endpointRef,
      body,
      outputs,
      adopt: adoptEndpoint,
    });
  }

  /**
   * Names an unnamed endpoint: the name it already has (also when a new authenticationType replaces
   * it: the name stays), the import id's, or a new generated one. Refuses inputs of no kind, or of
   * both, naming the fields, before anything is sent.
   */
  async check(olds: Partial<EndpointProviderInputs>, news: EndpointProviderInputs) {
    const failures = shapeProblems(news as EndpointProviderInputs & Record<string, unknown>);
    if (failures.length > 0) return { inputs: news, failures };
    if (news.name !== undefined) return { inputs: news };
    const imported = news.importId === undefined ? undefined : parseEndpointId(news.importId)?.name;
    const name = olds.name ?? imported ?? autoName(news.logicalName ?? "endpoint");
    return { inputs: { ...news, name } };
  }

  async diff(_id: string, olds: EndpointProviderOutputs, news: EndpointProviderInputs) {
    return diffFields(comparable(olds), comparable(news), ENDPOINT_FIELD_ROLES);
  }

  override async update(id: string, olds: EndpointProviderOutputs, news: EndpointProviderInputs) {
    const ref = endpointRef(id);
    const client = serviceClient(news, this.configured);
    // A new kind never gets here (diff replaces it); a mismatch is left to the service, which refuses it.
    const endpoint =
      kindOf(news) === "IdentityBased" && kindOf(olds) === "IdentityBased"
        ? await client.endpoints.update(ref.twinsInstanceId, ref.name, identityPatch(olds, news), {
            ifMatch: "*",
          })
        : await client.endpoints.put(ref.twinsInstanceId, ref.name, body(news), { ifMatch: "*" });
    return { outs: outputs(endpoint, news) };
  }
}
