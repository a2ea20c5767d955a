import type * as pulumi from "@pulumi/pulumi";
import { autoName } from "../../client/auto-name";
import { parseEndpointId } from "../../client/resource-paths";
import type { QueueEndpoint, QueueEndpointInput } from "../../client/types";
import { adoptEndpoint } from "./adopt-existing";
import { diffFields, type FieldRoles } from "./field-diff";
import { keepKnownSecret, maskConnectionString, maskDeadLetterSecret } from "./masked-secrets";
import { connectionOutputs, type ServiceConnectionInputs } from "./service-connection";
import { type TwinsChildInputs, TwinsChildProvider } from "./twins-child-provider";

export interface EndpointSecretsInputs {
  queuePrimaryConnectionString: string;
  queueSecondaryConnectionString: string;
  deadLetterStorageSecret?: string;
}

/** `name` absent: `check` names the endpoint `<logicalName>-<7 random chars>`, once, and keeps that name. */
export interface EndpointProviderInputs extends EndpointSecretsInputs, TwinsChildInputs {}

export interface EndpointProviderOutputs extends EndpointSecretsInputs, ServiceConnectionInputs {
  twinsInstanceId: string;
  name: string;
}

export const ENDPOINT_FIELD_ROLES: FieldRoles = {
  replaces: ["twinsInstanceId", "name"],
  updates: [
    "queuePrimaryConnectionString",
    "queueSecondaryConnectionString",
    "deadLetterStorageSecret",
    "serviceEndpoint",
    "serviceKey",
  ],
};

function body(inputs: EndpointSecretsInputs): QueueEndpointInput {
  return {
    queuePrimaryConnectionString: inputs.queuePrimaryConnectionString,
    queueSecondaryConnectionString: inputs.queueSecondaryConnectionString,
    ...(inputs.deadLetterStorageSecret !== undefined && {
      deadLetterStorageSecret: inputs.deadLetterStorageSecret,
    }),
  };
}

/**
 * The outputs of an endpoint the service answered for: names as the service keeps them, secrets as
 * the program knows them when the service's masked answer still matches them (never the mask over
 * a real value).
 */
function outputs(
  endpoint: QueueEndpoint,
  known: Partial<EndpointSecretsInputs> & ServiceConnectionInputs,
): EndpointProviderOutputs {
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
    twinsInstanceId: endpoint.twinsInstanceId,
    name: endpoint.name,
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

/**
 * CRUD for QueueEndpoint. The id is the endpoint's full resource path. Its update is a full PUT
 * that must find the endpoint (If-Match: *): an absent dead-letter secret is removed.
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

  /** Names an unnamed endpoint: the name it already has, the import id's, or a new generated one. */
  async check(olds: Partial<EndpointProviderInputs>, news: EndpointProviderInputs) {
    if (news.name !== undefined) return { inputs: news };
    const imported = news.importId === undefined ? undefined : parseEndpointId(news.importId)?.name;
    const name = olds.name ?? imported ?? autoName(news.logicalName ?? "endpoint");
    return { inputs: { ...news, name } };
  }

  async diff(_id: string, olds: EndpointProviderOutputs, news: EndpointProviderInputs) {
    return diffFields({ ...olds }, { ...news }, ENDPOINT_FIELD_ROLES);
  }
}
