import { autoName } from "./auto-name";
import type { CallOptions, ListOptions, MatchOptions, PageOptions, WriteOptions } from "./client-options";
import type { PagedAsyncIterable } from "./paged-list";
import type { ResourceCalls } from "./resource-calls";
import { eventRoutePath, testEventRouteFilterPath } from "./resource-paths";
import type {
  EventRoute,
  EventRouteInput,
  Page,
  PutResult,
  TestEventRouteFilterInput,
  TestEventRouteFilterResult,
  WithEtag,
} from "./types";

export interface CreateEventRouteOptions extends CallOptions {
  /** The route's name; absent, it is `<logicalName>-<7 random chars>`. */
  name?: string;
  /** The prefix of a generated name (e.g. the Pulumi resource name). Default "route". */
  logicalName?: string;
}

/**
 * `{twinsInstanceId}/eventRoutes/{name}`: which of the instance's events go to which of its
 * endpoints. The id, and the import identifier, is that full path. A route is replaced whole (the
 * service has no PATCH for it). Writes are refused with a ServiceError 400 (target `endpointName`)
 * when the endpoint does not exist in the same instance, 400 (target `filter`) for a filter that
 * does not parse, and 409 `QuotaExceeded` past the routes-per-instance quota.
 */
export class EventRoutesClient {
  constructor(private readonly calls: ResourceCalls<EventRoute>) {}

  /** Creates (201) or replaces (200) the route; `ifMatch` / `ifNoneMatch` make it conditional. */
  async put(
    twinsInstanceId: string,
    name: string,
    input: EventRouteInput,
    options?: WriteOptions,
  ): Promise<PutResult<EventRoute>> {
    return this.calls.put(eventRoutePath(twinsInstanceId, name), input, options);
  }

  /** Creates the route, auto-named when no name is given; a ServiceError 412 when it exists. */
  async create(
    twinsInstanceId: string,
    input: EventRouteInput,
    options: CreateEventRouteOptions = {},
  ): Promise<PutResult<EventRoute>> {
    const { name, logicalName, ...callOptions } = options;
    const routeName = name ?? autoName(logicalName ?? "route");
    return this.calls.put(eventRoutePath(twinsInstanceId, routeName), input, {
      ...callOptions,
      ifNoneMatch: "*",
    });
  }

  /**
   * `POST {twinsInstanceId}/testEventRouteFilter`: whether `filter` lets `event` through, as
   * delivery would decide it, and when not, `reason` (the comparison that decided it). Nothing is
   * written or sent. A ServiceError 400 (target `filter`, the message a route PUT gets) for a
   * filter that does not parse, 400 (target under `event`) for an event ingest would refuse.
   */
  async testFilter(
    twinsInstanceId: string,
    input: TestEventRouteFilterInput,
    options?: CallOptions,
  ): Promise<TestEventRouteFilterResult> {
    const { filter, event } = input;
    return this.calls.action<TestEventRouteFilterResult>(
      testEventRouteFilterPath(twinsInstanceId),
      { filter, event },
      { signal: options?.signal },
    );
  }

  async get(twinsInstanceId: string, name: string, options?: CallOptions): Promise<WithEtag<EventRoute>> {
    return this.calls.get(eventRoutePath(twinsInstanceId, name), options);
  }

  /** Undefined when the route still has `etag` (the service answered 304). */
  async getIfChanged(
    twinsInstanceId: string,
    name: string,
    etag: string,
    options?: CallOptions,
  ): Promise<WithEtag<EventRoute> | undefined> {
    return this.calls.getIfChanged(eventRoutePath(twinsInstanceId, name), etag, options);
  }

  /** True when a route was deleted, false when there was none. */
  async delete(twinsInstanceId: string, name: string, options?: MatchOptions): Promise<boolean> {
    return this.calls.delete(eventRoutePath(twinsInstanceId, name), options);
  }

  list(twinsInstanceId: string, options?: ListOptions): PagedAsyncIterable<EventRoute> {
    return this.calls.list(() => eventRoutePath(twinsInstanceId), options);
  }

  async listPage(twinsInstanceId: string, options?: PageOptions): Promise<Page<EventRoute>> {
    return this.calls.listPage(eventRoutePath(twinsInstanceId), options);
  }
}
