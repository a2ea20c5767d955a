import { routeTable } from "../../src/triggers/routes";

/**
 * Every fixed segment of the route table's templates (`providers`, `resourceGroups`,
 * `Microsoft.Authorization`, `roleAssignments`, `endpoints`, …), each to be tried as a name: a
 * name equal to one must stay a name.
 */
export const ROUTE_KEYWORDS: readonly string[] = [
  ...new Set(routeTable.flatMap((row) => row.route.split("/").filter((segment) => !segment.startsWith("{")))),
];
