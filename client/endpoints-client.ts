import { autoName } from "./auto-name";
import type { CallOptions, ListOptions, MatchOptions, PageOptions, WriteOptions } from "./client-options";
import type { PagedAsyncIterable } from "./paged-list";
import type { ResourceCalls } from "./resource-calls";
import { endpointPath, redeliverDeadLettersPath } from "./resource-paths";
import type {
  DeadLetterReason,
  Page,
  PutResult,
  QueueEndpoint,
  QueueEndpointInput,
  QueueEndpointPatch,
  RedeliverDeadLettersInput,
  RedeliveryResult,
  WithEtag,
} from "./types";

export interface RedeliverDeadLettersOptions extends CallOptions {
  /** Dead letters written at or after this time; default: no lower bound. */
  from?: Date | string;
  /** Dead letters written at or before this time; default: no upper bound. */
  to?: Date | string;
  /** Only dead letters whose `deadletterreason` is this (compared exactly); default: any. */
  reason?: DeadLetterReason;
  /** Also redeliver those an earlier run marked `redelivered`. Default false. */
  force?: boolean;
}

export interface CreateEndpointOptions extends CallOptions {
  /** The endpoint's name; absent, it is `<logicalName>-<7 random chars>`. */
  name?: string;
  /** The prefix of a generated name (e.g. the Pulumi resource name). Default "endpoint". */
  logicalName?: string;
}

/**
 * `{twinsInstanceId}/endpoints/{name}`: the id, and the import identifier, is that full path.
 * An endpoint is `KeyBased` (connection strings and a SAS URL; answers carry them masked,
 * `SharedAccessKey=***` and the SAS query as `***`) or `IdentityBased` (a namespace, a topic, a
 * container and a managed identity of the service; nothing secret, answered whole): narrow an
 * answer on its `authenticationType`. The kind is fixed at creation: a PUT or PATCH that changes it
 * is a ServiceError 400 naming `authenticationType`.
 */
export class EndpointsClient {
  constructor(private readonly calls: ResourceCalls<QueueEndpoint>) {}

  /**
   * Creates (201) or replaces (200) the endpoint. `input.authenticationType` absent is `KeyBased`;
   * replacing an endpoint of the other kind is refused (400).
   */
  async put(
    twinsInstanceId: string,
    name: string,
    input: QueueEndpointInput,
    options?: WriteOptions,
  ): Promise<PutResult<QueueEndpoint>> {
    return this.calls.put(endpointPath(twinsInstanceId, name), input, options);
  }

  /** Creates the endpoint, auto-named when no name is given; a ServiceError 412 when it exists. */
  async create(
    twinsInstanceId: string,
    input: QueueEndpointInput,
    options: CreateEndpointOptions = {},
  ): Promise<PutResult<QueueEndpoint>> {
    const { name, logicalName, ...callOptions } = options;
    const endpointName = name ?? autoName(logicalName ?? "endpoint");
    return this.calls.put(endpointPath(twinsInstanceId, endpointName), input, {
      ...callOptions,
      ifNoneMatch: "*",
    });
  }

  async get(twinsInstanceId: string, name: string, options?: CallOptions): Promise<WithEtag<QueueEndpoint>> {
    return this.calls.get(endpointPath(twinsInstanceId, name), options);
  }

  /** Undefined when the endpoint still has `etag` (the service answered 304). */
  async getIfChanged(
    twinsInstanceId: string,
    name: string,
    etag: string,
    options?: CallOptions,
  ): Promise<WithEtag<QueueEndpoint> | undefined> {
    return this.calls.getIfChanged(endpointPath(twinsInstanceId, name), etag, options);
  }

  /**
   * Changes the given fields only (PATCH), of the endpoint's own kind: `deadLetterStorageSecret: null`
   * (key-based) or `deadLetterUri: null` (identity-based) removes the dead-letter location.
   */
  async update(
    twinsInstanceId: string,
    name: string,
    patch: QueueEndpointPatch,
    options?: MatchOptions,
  ): Promise<WithEtag<QueueEndpoint>> {
    return this.calls.patch(endpointPath(twinsInstanceId, name), patch, options);
  }

  /**
   * Re-queues the endpoint's dead-lettered events for delivery to this endpoint only, and marks
   * each blob `redelivered` (nothing is deleted); marked ones are skipped unless `force`. Safe to
   * repeat after an interruption (at least once: an event queued but not yet marked is queued again).
   * A ServiceError 404 when the endpoint does not exist, 409 when it has no dead-letter secret.
   */
  async redeliverDeadLetters(
    twinsInstanceId: string,
    name: string,
    options: RedeliverDeadLettersOptions = {},
  ): Promise<RedeliveryResult> {
    const { from, to, reason, force, signal } = options;
    const input: RedeliverDeadLettersInput = {
      ...(from !== undefined && { from: from instanceof Date ? from.toISOString() : from }),
      ...(to !== undefined && { to: to instanceof Date ? to.toISOString() : to }),
      ...(reason !== undefined && { reason }),
      ...(force !== undefined && { force }),
    };
    return this.calls.action<RedeliveryResult>(redeliverDeadLettersPath(twinsInstanceId, name), input, {
      signal,
    });
  }

  async delete(twinsInstanceId: string, name: string, options?: MatchOptions): Promise<boolean> {
    return this.calls.delete(endpointPath(twinsInstanceId, name), options);
  }

  list(twinsInstanceId: string, options?: ListOptions): PagedAsyncIterable<QueueEndpoint> {
    return this.calls.list(() => endpointPath(twinsInstanceId), options);
  }

  async listPage(twinsInstanceId: string, options?: PageOptions): Promise<Page<QueueEndpoint>> {
    return this.calls.listPage(endpointPath(twinsInstanceId), options);
  }
}
