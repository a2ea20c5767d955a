import type { CallOptions, ListOptions, MatchOptions, PageOptions, WriteOptions } from "./client-options";
import type { PagedAsyncIterable } from "./paged-list";
import type { ResourceCalls } from "./resource-calls";
import { type AssessmentRef, assessmentPath, type ProjectRef, projectPath } from "./resource-paths";
import type { ClusterAssessment, ClusterAssessmentInput, Page, PutResult, WithEtag } from "./types";

/**
 * ClusterAssessment lookups (function key), and the write path of the producing system (`put`,
 * `delete`: the master key only; a function key gets a ServiceError 401).
 */
export class AssessmentsClient {
  constructor(
    private readonly calls: ResourceCalls<ClusterAssessment>,
    private readonly subscriptionId: string | undefined,
  ) {}

  async get(ref: AssessmentRef, options?: CallOptions): Promise<WithEtag<ClusterAssessment>> {
    return this.calls.get(assessmentPath(ref, this.subscriptionId), options);
  }

  /** Undefined when the assessment still has `etag` (the service answered 304). */
  async getIfChanged(
    ref: AssessmentRef,
    etag: string,
    options?: CallOptions,
  ): Promise<WithEtag<ClusterAssessment> | undefined> {
    return this.calls.getIfChanged(assessmentPath(ref, this.subscriptionId), etag, options);
  }

  list(ref: ProjectRef, options?: ListOptions): PagedAsyncIterable<ClusterAssessment> {
    return this.calls.list(() => projectPath(ref, this.subscriptionId), options);
  }

  async listPage(ref: ProjectRef, options?: PageOptions): Promise<Page<ClusterAssessment>> {
    return this.calls.listPage(projectPath(ref, this.subscriptionId), options);
  }

  /** Master key only. Creates (201) or replaces (200); the server sets id, name, type, eTag, systemData. */
  async put(
    ref: AssessmentRef,
    input: ClusterAssessmentInput,
    options?: WriteOptions,
  ): Promise<PutResult<ClusterAssessment>> {
    return this.calls.put(assessmentPath(ref, this.subscriptionId), input, options);
  }

  /** Master key only. True when an assessment was deleted, false when there was none. */
  async delete(ref: AssessmentRef, options?: MatchOptions): Promise<boolean> {
    return this.calls.delete(assessmentPath(ref, this.subscriptionId), options);
  }
}
