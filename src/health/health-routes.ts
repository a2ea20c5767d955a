import type { RouteDefinition } from "../http/route";
import { checkHealth } from "./health-check";

export const healthRoutes: RouteDefinition[] = [
  {
    name: "health",
    methods: ["GET"],
    route: "health",
    authLevel: "anonymous",
    handler: async (_request, _context, { healthProbes }) => {
      const report = await checkHealth(healthProbes);
      const headers: Record<string, string> = report.status === "ok" ? {} : { "Retry-After": "5" };
      return { status: report.status === "ok" ? 200 : 503, jsonBody: report, headers };
    },
  },
];
