import type { CallOptions, ListOptions, MatchOptions, PageOptions, WriteOptions } from "./client-options";
import type { PagedAsyncIterable } from "./paged-list";
import type { ResourceCalls } from "./resource-calls";
import { profilePath } from "./resource-paths";
import type {
  AuthenticationProfile,
  AuthenticationProfileInput,
  AuthenticationProfilePatch,
  Page,
  PutResult,
  WithEtag,
} from "./types";

/** `/authenticationProfiles/{name}`: the id, and the import identifier, is the name. */
export class ProfilesClient {
  constructor(private readonly calls: ResourceCalls<AuthenticationProfile>) {}

  /** Creates (201) or replaces (200) the profile. */
  async put(
    name: string,
    input: AuthenticationProfileInput,
    options?: WriteOptions,
  ): Promise<PutResult<AuthenticationProfile>> {
    return this.calls.put(profilePath(name), input, options);
  }

  /** Creates the profile; a ServiceError 412 when one of that name exists. */
  async create(
    name: string,
    input: AuthenticationProfileInput,
    options?: CallOptions,
  ): Promise<PutResult<AuthenticationProfile>> {
    return this.calls.put(profilePath(name), input, { ...options, ifNoneMatch: "*" });
  }

  async get(name: string, options?: CallOptions): Promise<WithEtag<AuthenticationProfile>> {
    return this.calls.get(profilePath(name), options);
  }

  /** Undefined when the profile still has `etag` (the service answered 304). */
  async getIfChanged(
    name: string,
    etag: string,
    options?: CallOptions,
  ): Promise<WithEtag<AuthenticationProfile> | undefined> {
    return this.calls.getIfChanged(profilePath(name), etag, options);
  }

  /** Changes the given fields only (PATCH). */
  async update(
    name: string,
    patch: AuthenticationProfilePatch,
    options?: MatchOptions,
  ): Promise<WithEtag<AuthenticationProfile>> {
    return this.calls.patch(profilePath(name), patch, options);
  }

  /** True when a profile was deleted, false when there was none. */
  async delete(name: string, options?: MatchOptions): Promise<boolean> {
    return this.calls.delete(profilePath(name), options);
  }

  list(options?: ListOptions): PagedAsyncIterable<AuthenticationProfile> {
    return this.calls.list(() => profilePath(), options);
  }

  async listPage(options?: PageOptions): Promise<Page<AuthenticationProfile>> {
    return this.calls.listPage(profilePath(), options);
  }
}
