import type * as pulumi from "@pulumi/pulumi";
import { autoName } from "../../client/auto-name";
import { parseEndpointId } from "../../client/resource-paths";
import type { QueueEndpoint, QueueEndpointInput } from "../../client/types";
import { adoptEndpoint } from "./adopt-existing";
import { diffFields, type FieldRoles } from "./field-diff";
import { keepKnownSecret, maskConnectionString, maskDeadLetterSecret } from "./masked-secrets";
import { unlessNotFound } from "./not-found";
import {
  type ConfiguredConnection,
  connectionOutputs,
  readConfiguredConnection,
  type ServiceConnectionInputs,
  serviceClient,
} from "./service-connection";

export interface EndpointSecretsInputs {
  queuePrimaryConnectionString: string;
  queueSecondaryConnectionString: string;
  deadLetterStorageSecret?: string;
}

export interface EndpointProviderInputs extends EndpointSecretsInputs, ServiceConnectionInputs {
  twinsInstanceId: string;
  /** Absent: `check` names the endpoint `<logicalName>-<7 random chars>`, once, and keeps that name. */
  name?: string;
  /** The Pulumi resource name, the prefix of a generated name. */
  logicalName?: string;
  /** Set from the `import` resource option: adopt this existing endpoint instead of creating one. */
  importId?: string;
}

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
 * CRUD for QueueEndpoint. The id is the endpoint's full resource path. Serialized by Pulumi into
 * the state: it holds nothing but the stack config `configure` hands it in the provider process.
 */
export class QueueEndpointProvider
  implements pulumi.dynamic.ResourceProvider<EndpointProviderInputs, EndpointProviderOutputs>
{
  private configured: ConfiguredConnection = {};

  async configure(request: pulumi.dynamic.ConfigureRequest): Promise<void> {
    this.configured = readConfiguredConnection(request.config);
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

  async create(inputs: EndpointProviderInputs) {
    const client = serviceClient(inputs, this.configured);
    const endpoint =
      inputs.importId === undefined
        ? await client.endpoints.create(inputs.twinsInstanceId, body(inputs), {
            ...(inputs.name !== undefined && { name: inputs.name }),
            ...(inputs.logicalName !== undefined && { logicalName: inputs.logicalName }),
          })
        : adoptEndpoint(await getById(client, inputs.importId), inputs);
    return { id: endpoint.id, outs: outputs(endpoint, inputs) };
  }

  /** Works from the id alone (refresh, `get`); the props lend the connection and the real secrets. */
  async read(id: string, props?: Partial<EndpointProviderOutputs>) {
    const known = props ?? {};
    const client = serviceClient(known, this.configured);
    const endpoint = await unlessNotFound(() => getById(client, id));
    if (endpoint === undefined) return {};
    return { id: endpoint.id, props: outputs(endpoint, known) };
  }

  /** A full PUT that must find the endpoint (If-Match: *); an absent dead-letter secret is removed. */
  async update(id: string, _olds: EndpointProviderOutputs, news: EndpointProviderInputs) {
    const client = serviceClient(news, this.configured);
    const ref = endpointRef(id);
    const endpoint = await client.endpoints.put(ref.twinsInstanceId, ref.name, body(news), { ifMatch: "*" });
    return { outs: outputs(endpoint, news) };
  }

  async delete(id: string, props: EndpointProviderOutputs) {
    const ref = endpointRef(id);
    await serviceClient(props, this.configured).endpoints.delete(ref.twinsInstanceId, ref.name);
  }
}

function getById(client: ReturnType<typeof serviceClient>, id: string) {
  const ref = endpointRef(id);
  return client.endpoints.get(ref.twinsInstanceId, ref.name);
}
