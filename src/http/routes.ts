import { assessmentRoutes } from "../assessments/assessment-routes";
import { endpointRoutes } from "../endpoints/endpoint-routes";
import { ingestRoutes } from "../events/ingest-routes";
import { healthRoutes } from "../health/health-routes";
import { profileRoutes } from "../profiles/profile-routes";
import { openApiRoutes } from "./openapi-routes";
import type { RouteDefinition } from "./route";

/**
 * The one route table. functions/ registers it with the Functions host and the local host in
 * dev/ serves it; nothing else lists routes.
 */
export const routes: readonly RouteDefinition[] = [
  ...healthRoutes,
  ...profileRoutes,
  ...endpointRoutes,
  ...ingestRoutes,
  ...assessmentRoutes,
  ...openApiRoutes(() => routes),
];
