import type { TwinServiceClient } from "../../client/twin-service-client";
import { ConfiguredProvider } from "./configured-provider";
import { unlessNotFound } from "./not-found";
import { type ServiceConnectionInputs, serviceClient } from "./service-connection";

/** Where a resource below a twins instance lives: `{twinsInstanceId}/<collection>/{name}`. */
export interface TwinsChildRef {
  twinsInstanceId: string;
  name: string;
}

/** The calls the provider makes of a client collection (`client.endpoints`, `client.eventRoutes`). */
interface TwinsChildCollection<Body, Resource> {
  create(
    twinsInstanceId: string,
    input: Body,
    options: { name?: string; logicalName?: string },
  ): Promise<Resource>;
  get(twinsInstanceId: string, name: string): Promise<Resource>;
  put(twinsInstanceId: string, name: string, input: Body, options: { ifMatch: string }): Promise<Resource>;
  delete(twinsInstanceId: string, name: string): Promise<unknown>;
}

/** The inputs all of them have besides their own. */
export interface TwinsChildInputs extends ServiceConnectionInputs {
  twinsInstanceId: string;
  /** Absent: the client names it `<logicalName>-<7 random chars>` (`check` usually named it first). */
  name?: string;
  /** The Pulumi resource name, the prefix of a generated name. */
  logicalName?: string;
  /** Set from the `import` resource option: adopt this existing resource instead of creating one. */
  importId?: string;
}

/** What sets one kind apart: its collection, its request body, its outputs, its id and its import check. */
export interface TwinsChildKind<
  Body,
  Resource extends { id: string },
  Inputs extends TwinsChildInputs,
  Outputs,
> {
  collection(client: TwinServiceClient): TwinsChildCollection<Body, Resource>;
  /** The id parsed, or an error naming the id's form. */
  ref(id: string): TwinsChildRef;
  body(inputs: Inputs): Body;
  /** The outputs of a resource the service answered for; `known` lends the connection and the like. */
  outputs(resource: Resource, known: Partial<Inputs>): Outputs;
  /** The existing resource, if the program describes it as it is; else an error naming what differs. */
  adopt(existing: Resource, inputs: Inputs): Resource;
}

/**
 * Create, read, update and delete for the resources that live below a twins instance (queue
 * endpoints, event routes): they differ only in what `TwinsChildKind` holds, so they share this
 * code, and a fix made here holds for both. The id is the resource's full path; each kind adds its
 * own `check` (how it is named) and `diff` (which changes replace it).
 */
export class TwinsChildProvider<
  Body,
  Resource extends { id: string },
  Inputs extends TwinsChildInputs,
  Outputs extends ServiceConnectionInputs,
> extends ConfiguredProvider {
  constructor(private readonly kind: TwinsChildKind<Body, Resource, Inputs, Outputs>) {
    super();
  }

  /** Fails (412) rather than take over a resource that exists, unless the program imports it. */
  async create(inputs: Inputs) {
    const client = serviceClient(inputs, this.configured);
    const resource =
      inputs.importId === undefined
        ? await this.kind.collection(client).create(inputs.twinsInstanceId, this.kind.body(inputs), {
            ...(inputs.name !== undefined && { name: inputs.name }),
            ...(inputs.logicalName !== undefined && { logicalName: inputs.logicalName }),
          })
        : this.kind.adopt(await this.getById(client, inputs.importId), inputs);
    return { id: resource.id, outs: this.kind.outputs(resource, inputs) };
  }

  /** Works from the id alone (refresh, `get`, import); the props lend what `outputs` keeps of them. */
  async read(id: string, props?: Partial<Inputs>) {
    const known: Partial<Inputs> = props ?? {};
    const client = serviceClient(known, this.configured);
    const resource = await unlessNotFound(() => this.getById(client, id));
    if (resource === undefined) return {};
    return { id: resource.id, props: this.kind.outputs(resource, known) };
  }

  /**
   * A full PUT that must find the resource (If-Match: *), so one deleted meanwhile fails (412)
   * instead of coming back; what the body leaves out is removed.
   */
  async update(id: string, _olds: Outputs, news: Inputs) {
    const client = serviceClient(news, this.configured);
    const ref = this.kind.ref(id);
    const collection = this.kind.collection(client);
    const resource = await collection.put(ref.twinsInstanceId, ref.name, this.kind.body(news), {
      ifMatch: "*",
    });
    return { outs: this.kind.outputs(resource, news) };
  }

  async delete(id: string, props: Outputs) {
    const ref = this.kind.ref(id);
    await this.kind.collection(serviceClient(props, this.configured)).delete(ref.twinsInstanceId, ref.name);
  }

  private getById(client: TwinServiceClient, id: string): Promise<Resource> {
    const ref = this.kind.ref(id);
    return this.kind.collection(client).get(ref.twinsInstanceId, ref.name);
  }
}
