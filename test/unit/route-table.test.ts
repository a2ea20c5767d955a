import type { RouteRow } from "../../src/http/route";
import { definitionOf, routeTable } from "../../src/triggers/routes";

const VERBS: Record<string, string> = { GET: "read", PUT: "write", PATCH: "write", DELETE: "delete" };
/** POSTs that change nothing and are authorized as a read (trying a filter is reading the routes). */
const READS_BY_POST = new Set(["eventRoutes-testFilter"]);

function templateParams(route: string): string[] {
  return [...route.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string).sort();
}

function sampleParams(row: RouteRow): Record<string, string> {
  return Object.fromEntries(templateParams(row.route).map((name) => [name, `v-${name}`]));
}

describe("the route table", () => {
  it("names each function once, and each method and template once", () => {
    const names = routeTable.map((row) => row.name);
    expect(new Set(names).size).toBe(names.length);
    const routes = routeTable.map((row) => `${row.method} ${row.route.toLowerCase()}`);
    expect(new Set(routes).size).toBe(routes.length);
  });

  it("gives every keyed row an action whose verb is its method's, and an id to act on", () => {
    for (const row of routeTable.filter((candidate) => candidate.authLevel !== "anonymous")) {
      expect({ row: row.name, action: row.action !== undefined, actsOn: row.actsOn !== undefined }).toEqual({
        row: row.name,
        action: true,
        actsOn: true,
      });
      const verb =
        row.method !== "POST" ? VERBS[row.method] : READS_BY_POST.has(row.name) ? "read" : "action";
      expect(row.action?.split("/").at(-1)).toBe(verb);
    }
  });

  it("loads for each row an operation whose path parameters are the row's template's", () => {
    for (const row of routeTable) {
      const shape = definitionOf(row).doc.pathParameters?.shape ?? {};
      expect({ row: row.name, params: Object.keys(shape).sort() }).toEqual({
        row: row.name,
        params: templateParams(row.route),
      });
    }
  });

  it("acts on an id built from the parameters alone, each value one name: a keyword value changes nothing", () => {
    for (const row of routeTable.filter((candidate) => candidate.actsOn !== undefined)) {
      const plain = row.actsOn?.(sampleParams(row));
      const keywords = Object.fromEntries(Object.keys(sampleParams(row)).map((name) => [name, "providers"]));
      const keyworded = row.actsOn?.(keywords);
      expect(keyworded?.levels.length).toBe(plain?.levels.length);
      expect(keyworded?.levels.map((level) => level.type)).toEqual(
        plain?.levels.map((level) => level.type.replace(/v-[A-Za-z]+/g, "providers")),
      );
    }
  });

  it("makes a role assignment act on its scope, never on a path below it", () => {
    for (const row of routeTable.filter((candidate) => candidate.name.startsWith("roleAssignments-"))) {
      const id = row.actsOn?.(sampleParams(row));
      expect(id?.levels.some((level) => level.type.includes("Microsoft.Authorization"))).toBe(false);
      expect(row.action?.startsWith("Microsoft.Authorization/roleAssignments/")).toBe(true);
    }
  });
});
