import { openApiRoutes } from "../http/openapi-routes";
import type { RouteDefinition } from "../http/route";
import { assessmentRoutes } from "../http/routes/assessment-routes";
import { endpointRoutes } from "../http/routes/endpoint-routes";
import { healthRoutes } from "../http/routes/health-routes";
import { ingestRoutes } from "../http/routes/ingest-routes";
import { profileRoutes } from "../http/routes/profile-routes";
import { roleAssignmentRoutes } from "../http/routes/role-assignment-routes";

/**
 * The one route table. The local host in dev/ serves it; functions/http.ts registers its functions
 * from route-registrations.ts (names, methods, templates and key levels only, held equal to this
 * table by a unit test) and loads it with the first request. Its companion, the queue-function
 * table, is queue-functions.ts beside it.
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
