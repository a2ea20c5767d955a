/**
 * The api-versions each family of routes takes, oldest first; the newest is used when a request
 * names none. No imports: the client takes its defaults from here.
 */

/** AuthenticationProfile, QueueEndpoint and event ingest. */
export const RESOURCE_API_VERSIONS = ["2026-11-01"] as const;

/** ClusterAssessment, whose versions are those of the Azure Migrate API it mirrors. */
export const ASSESSMENT_API_VERSIONS = [
  "2023-04-01-preview",
  "2023-05-01-preview",
  "2023-09-09-preview",
] as const;

/** Role assignments, whose version is that of the Azure RBAC API they follow. */
export const ROLE_ASSIGNMENT_API_VERSIONS = ["2022-04-01"] as const;

export function newestApiVersion(versions: readonly string[]): string {
  return versions[versions.length - 1] as string;
}
