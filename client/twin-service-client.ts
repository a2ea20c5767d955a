import { AssessmentsClient } from "./assessments-client";
import { type CallOptions, DEFAULT_API_VERSIONS, type TwinServiceClientOptions } from "./client-options";
import { EndpointsClient } from "./endpoints-client";
import { EventRoutesClient } from "./event-routes-client";
import { EventsClient } from "./events-client";
import { ProfilesClient } from "./profiles-client";
import { ResourceCalls } from "./resource-calls";
import { RoleAssignmentsClient } from "./role-assignments-client";
import { Transport } from "./transport";
import type { HealthReport } from "./types";

/**
 * A typed client for the twin resource service: one object per resource type, each method one
 * route of the contract, sent through an Azure SDK pipeline (see Transport): a Functions key or an
 * Entra ID token from a TokenCredential, retries, a per-try timeout, User-Agent, redacted logging
 * (AZURE_LOG_LEVEL), OpenTelemetry spans, HTTPS_PROXY.
 * Refused answers throw ServiceError, once 429/503 have been retried; a call that cannot reach the
 * service, once network failures of idempotent calls have been retried, throws core-rest-pipeline's
 * RestError with the failure's `code` (ECONNRESET, ECONNREFUSED, ETIMEDOUT, …). Keep one client
 * for many calls: it pools keep-alive connections.
 */
export class TwinServiceClient {
  readonly profiles: ProfilesClient;
  readonly endpoints: EndpointsClient;
  readonly eventRoutes: EventRoutesClient;
  readonly events: EventsClient;
  readonly assessments: AssessmentsClient;
  readonly roleAssignments: RoleAssignmentsClient;
  private readonly transport: Transport;

  constructor(options: TwinServiceClientOptions) {
    this.transport = new Transport(options);
    const versions = { ...DEFAULT_API_VERSIONS, ...options.apiVersion };
    this.profiles = new ProfilesClient(new ResourceCalls(this.transport, versions.resources));
    this.endpoints = new EndpointsClient(new ResourceCalls(this.transport, versions.resources));
    this.eventRoutes = new EventRoutesClient(new ResourceCalls(this.transport, versions.resources));
    this.events = new EventsClient(this.transport, versions.resources);
    this.assessments = new AssessmentsClient(
      new ResourceCalls(this.transport, versions.assessments),
      options.subscriptionId,
    );
    this.roleAssignments = new RoleAssignmentsClient(
      new ResourceCalls(this.transport, versions.roleAssignments),
    );
  }

  /** Readiness, without the key or a token: the report for 200 and for 503 alike (503 is not retried). */
  async health(options: CallOptions = {}): Promise<HealthReport> {
    const response = await this.transport.send({
      method: "GET",
      url: this.transport.url("/health"),
      anonymous: true,
      noRetry: true,
      expect: [200, 503],
      signal: options.signal,
    });
    return (await response.json()) as HealthReport;
  }
}
