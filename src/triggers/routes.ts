import { openApiRoutes } from "../http/openapi-routes";
import type { RouteDefinition } from "../http/route";
import { assessmentRoutes } from "../http/routes/assessment-routes";
import { endpointRoutes } from "../http/routes/endpoint-routes";
import { healthRoutes } from "../http/routes/health-routes";
import { ingestRoutes } from "../http/routes/ingest-routes";
import { profileRoutes } from "../http/routes/profile-routes";
import { roleAssignmentRoutes } from "../http/routes/role-assignment-routes";

/**
 * The one route table. functions/ registers it with the Functions host and the local host in
 * dev/ serves it; nothing else lists routes. Its companion, the queue-function table, is
 * queue-functions.ts beside it.
 */
export const routes: readonly RouteDefinition[] = [
  ...healthRoutes,
  ...profileRoutes,
  ...endpointRoutes,
  ...ingestRoutes,
  ...assessmentRoutes,
  ...roleAssignmentRoutes,
  ...openApiRoutes(() => routes),
];
