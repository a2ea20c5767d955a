import { HttpRequest } from "@azure/functions";
import fc from "fast-check";
import { RouteMatcher } from "../../dev/route-matcher";
import { Authorizer, type GrantRecord } from "../../src/auth/authorizer";
import type { EntraPrincipal } from "../../src/auth/principal";
import { roleByName } from "../../src/auth/role-definitions";
import { AuthorizationFailed } from "../../src/common/errors";
import { authorizeCaller } from "../../src/http/caller";
import type { Services } from "../../src/services";
import { routeDefinitions } from "../../src/triggers/routes";
import { ROUTE_KEYWORDS } from "../support/route-keywords";

/*
 * A reference model of ARM's scope rules, written apart from the service: requests and grants are
 * made as structures (what they act on is known by construction), written out as URLs and scope
 * texts with keyword names, other letter cases and percent-encoding, and the service decides from
 * those texts alone (its router, its route table, its authorizer). Both must decide alike.
 */

const TENANT = "00000000-0000-4000-8000-0000000000aa";
const USER = "bbbbbbbb-0000-4000-8000-0000000000bb";

/** One level of what the model knows a thing is: its type and its name, or "*" for a collection. */
type Pair = readonly [type: string, name: string];

/** A scope, as a grant is made at it: the levels and the text the store holds. */
interface ModelScope {
  levels: Pair[] | undefined;
  text: string;
}

type Role = "Owner" | "Contributor" | "Reader" | "Twin Events Sender" | "Assessment Writer";

/** The role definitions' ids (only identifiers: what each allows is the model's own, below). */
function roleId(roleName: Role): string {
  const role = roleByName(roleName);
  if (role === undefined) throw new Error(`no role ${roleName}`);
  return role.name;
}

/** What each role lets do, as the contract's §6 words it, by the model's own reading. */
function modelAllows(role: Role, action: string): boolean {
  const [namespace, ...rest] = action.split("/");
  const verb = rest.at(-1);
  switch (role) {
    case "Owner":
      return true;
    case "Contributor":
      return !(namespace === "Microsoft.Authorization" && (verb === "write" || verb === "delete"));
    case "Reader":
      return verb === "read";
    case "Twin Events Sender":
      return action === "Microsoft.DigitalTwins/digitalTwinsInstances/events/action";
    case "Assessment Writer":
      // Writes, reads and deletes cluster assessments (docs/api.md's table of roles).
      return action.startsWith("Microsoft.Migrate/assessmentProjects/clusterAssessments/");
  }
}

const fold = (text: string) => text.toLowerCase();

/** Whether a grant at `scope` reaches `target`: its levels begin the target's, a "*" standing for any name. */
function modelCovers(scope: Pair[], target: Pair[]): boolean {
  if (scope.length > target.length) return false;
  return scope.every(([type, name], index) => {
    const [targetType, targetName] = target[index] as Pair;
    if (fold(type) !== fold(targetType)) return false;
    return name === "*" ? index === scope.length - 1 : fold(name) === fold(targetName);
  });
}

const name = fc.oneof(fc.constantFrom(...ROUTE_KEYWORDS), fc.constantFrom("a", "A", "b", "x-1"));

/** The structures requests act on, each with the text ARM writes for it. */
const where = {
  subscription: (s: string): Pair[] => [["subscriptions", s]],
  group: (s: string, g: string): Pair[] => [...where.subscription(s), ["resourceGroups", g]],
  instance: (s: string, g: string, i: string): Pair[] => [
    ...where.group(s, g),
    ["Microsoft.DigitalTwins/digitalTwinsInstances", i],
  ],
  project: (s: string, g: string, p: string): Pair[] => [
    ...where.group(s, g),
    ["Microsoft.Migrate/assessmentProjects", p],
  ],
};

function text(levels: Pair[]): string {
  let out = "";
  for (const [type, value] of levels) {
    if (type === "TwinResources/authenticationProfiles") out += "/authenticationProfiles";
    else if (
      type.includes("/") &&
      !type.startsWith("Microsoft.DigitalTwins/digitalTwinsInstances/") &&
      !type.startsWith("Microsoft.Migrate/assessmentProjects/")
    )
      out += `/providers/${type}`;
    else out += `/${type.split("/").at(-1)}`;
    if (value !== "*") out += `/${value}`;
  }
  return out === "" ? "/" : out;
}

const structured: fc.Arbitrary<Pair[]> = fc.oneof(
  fc.constant<Pair[]>([]),
  fc.constant<Pair[]>([["TwinResources/authenticationProfiles", "*"]]),
  name.map((n) => [["TwinResources/authenticationProfiles", n] as Pair]),
  name.map((s) => where.subscription(s)),
  fc.tuple(name, name).map(([s, g]) => where.group(s, g)),
  fc.tuple(name, name, name).map(([s, g, i]) => where.instance(s, g, i)),
  fc
    .tuple(name, name, name, name)
    .map(([s, g, i, e]) => [
      ...where.instance(s, g, i),
      ["Microsoft.DigitalTwins/digitalTwinsInstances/endpoints", e] as Pair,
    ]),
  fc.tuple(name, name, name).map(([s, g, p]) => where.project(s, g, p)),
  fc
    .tuple(name, name, name, name)
    .map(([s, g, p, a]) => [
      ...where.project(s, g, p),
      ["Microsoft.Migrate/assessmentProjects/clusterAssessments", a] as Pair,
    ]),
);

/** Scopes as grants hold them: made by a route, or odd texts an older store might hold. */
const grantScope: fc.Arbitrary<ModelScope> = fc.oneof(
  { weight: 6, arbitrary: structured.map((levels) => ({ levels, text: text(levels) })) },
  {
    weight: 1,
    arbitrary: fc.tuple(name, name, name).map(([s, g, i]) => ({
      levels: undefined,
      text: `${text(where.instance(s, g, i))}/providers/Microsoft.Authorization`,
    })),
  },
);

interface ModelRequest {
  method: string;
  /** Path segments, each a fixed word or a name. */
  segments: { value: string; fixed: boolean }[];
  action: string;
  target: Pair[];
  /** A list's items: what one named `n` is. */
  item?: (n: string) => Pair[];
}

const fixed = (path: string) => path.split("/").map((value) => ({ value, fixed: true }));
const named = (value: string) => ({ value, fixed: false });

function segmentsOf(levels: Pair[]) {
  const out: ModelRequest["segments"] = [];
  for (const [type, value] of levels) {
    const words = text([[type, "*"]])
      .split("/")
      .filter((word) => word !== "");
    if (
      type.startsWith("Microsoft.DigitalTwins/digitalTwinsInstances/") ||
      type.startsWith("Microsoft.Migrate/assessmentProjects/")
    )
      out.push(...fixed(type.split("/").at(-1) as string));
    else out.push(...words.map((word) => ({ value: word, fixed: true })));
    if (value !== "*") out.push(named(value));
  }
  return out;
}

const VERB: Record<string, string> = { GET: "read", PUT: "write", PATCH: "write", DELETE: "delete" };

/** Requests to the resources and to role assignments at every scope form. */
const request: fc.Arbitrary<ModelRequest> = fc.oneof(
  fc.tuple(fc.constantFrom("GET", "PUT", "PATCH", "DELETE"), name).map(([method, n]) => {
    const target: Pair[] = [["TwinResources/authenticationProfiles", n]];
    return {
      method,
      segments: segmentsOf(target),
      action: `TwinResources/authenticationProfiles/${VERB[method]}`,
      target,
    };
  }),
  fc.constant<ModelRequest>({
    method: "GET",
    segments: fixed("authenticationProfiles"),
    action: "TwinResources/authenticationProfiles/read",
    target: [["TwinResources/authenticationProfiles", "*"]],
    item: (n: string): Pair[] => [["TwinResources/authenticationProfiles", n]],
  }),
  fc
    .tuple(fc.constantFrom("GET", "PUT", "PATCH", "DELETE", "POST"), name, name, name, name)
    .map(([method, s, g, i, e]) => {
      const target: Pair[] = [
        ...where.instance(s, g, i),
        ["Microsoft.DigitalTwins/digitalTwinsInstances/endpoints", e],
      ];
      const segments = segmentsOf(target);
      if (method === "POST")
        return {
          method,
          segments: [...segments, ...fixed("redeliverDeadLetters")],
          action: "Microsoft.DigitalTwins/digitalTwinsInstances/endpoints/redeliverDeadLetters/action",
          target,
        };
      return {
        method,
        segments,
        action: `Microsoft.DigitalTwins/digitalTwinsInstances/endpoints/${VERB[method]}`,
        target,
      };
    }),
  fc.tuple(name, name, name).map(([s, g, i]) => ({
    method: "GET",
    segments: [...segmentsOf(where.instance(s, g, i)), ...fixed("endpoints")],
    action: "Microsoft.DigitalTwins/digitalTwinsInstances/endpoints/read",
    target: where.instance(s, g, i),
    item: (n: string): Pair[] => [
      ...where.instance(s, g, i),
      ["Microsoft.DigitalTwins/digitalTwinsInstances/endpoints", n],
    ],
  })),
  fc.tuple(name, name, name).map(([s, g, i]) => ({
    method: "POST",
    segments: [...segmentsOf(where.instance(s, g, i)), ...fixed("events")],
    action: "Microsoft.DigitalTwins/digitalTwinsInstances/events/action",
    target: where.instance(s, g, i),
  })),
  fc.tuple(fc.constantFrom("GET", "PUT", "DELETE"), name, name, name, name).map(([method, s, g, p, a]) => {
    const target: Pair[] = [
      ...where.project(s, g, p),
      ["Microsoft.Migrate/assessmentProjects/clusterAssessments", a],
    ];
    return {
      method,
      segments: segmentsOf(target),
      action: `Microsoft.Migrate/assessmentProjects/clusterAssessments/${VERB[method]}`,
      target,
    };
  }),
  fc.tuple(name, name, name).map(([s, g, p]) => ({
    method: "GET",
    segments: [...segmentsOf(where.project(s, g, p)), ...fixed("clusterAssessments")],
    action: "Microsoft.Migrate/assessmentProjects/clusterAssessments/read",
    target: where.project(s, g, p),
    item: (n: string): Pair[] => [
      ...where.project(s, g, p),
      ["Microsoft.Migrate/assessmentProjects/clusterAssessments", n],
    ],
  })),
  // A role assignment acts on its scope, whatever the scope's names are.
  fc.tuple(fc.constantFrom("GET", "PUT", "DELETE", "LIST"), structured).map(([method, scope]) => ({
    method: method === "LIST" ? "GET" : method,
    segments: [
      ...segmentsOf(scope),
      ...fixed("providers/Microsoft.Authorization/roleAssignments"),
      ...(method === "LIST" ? [] : [named("3f2504e0-4f89-41d3-9a0c-0305e82c3301")]),
    ],
    action: `Microsoft.Authorization/roleAssignments/${method === "LIST" ? "read" : VERB[method]}`,
    target: scope,
  })),
);

/** Writes a segment as a client might: another letter case for fixed words, some letters percent-encoded. */
function spelled(segment: { value: string; fixed: boolean }, variant: number): string {
  let value = segment.value;
  if (segment.fixed && variant % 3 === 1) value = value.toUpperCase();
  if (variant % 5 === 2) value = value.replace(/[a-z]/, (letter) => `%${letter.charCodeAt(0).toString(16)}`);
  if (segment.fixed && variant % 7 === 3)
    value = value.replace(/[A-Z]/, (letter) => `%${letter.charCodeAt(0).toString(16).toUpperCase()}`);
  return value;
}

type Decision = "all" | "deny" | string[];

function modelDecides(grants: { scope: ModelScope; role: Role }[], req: ModelRequest): Decision {
  const usable = grants.filter(
    (grant) => grant.scope.levels !== undefined && modelAllows(grant.role, req.action),
  );
  if (usable.some((grant) => modelCovers(grant.scope.levels as Pair[], req.target))) return "all";
  if (req.item === undefined) return "deny";
  const item = req.item;
  // A grant made at one item of the list, exactly: its last name is that item's.
  const names = usable.flatMap((grant) => {
    const levels = grant.scope.levels as Pair[];
    const last = levels.at(-1);
    if (last === undefined || last[1] === "*") return [];
    const candidate = item(last[1]);
    return levels.length === candidate.length && modelCovers(levels, candidate) ? [last[1]] : [];
  });
  const distinct = [...new Set(names.map(fold))].sort();
  return distinct.length === 0 ? "deny" : distinct;
}

const matcher = new RouteMatcher(routeDefinitions(), "");
const principal: EntraPrincipal = { kind: "entra", objectId: USER, tenantId: TENANT, type: "User" };

async function serviceDecides(records: GrantRecord[], req: ModelRequest, variant: number): Promise<Decision> {
  const path = `/${req.segments.map((segment, index) => spelled(segment, variant + index)).join("/")}`;
  const result = matcher.match(req.method, path);
  if (result.kind !== "matched") throw new Error(`${req.method} ${path} matched no route (${result.kind})`);
  const { route, params } = result.match;
  const authorizer = new Authorizer({ load: async () => records, admins: [], cacheMs: 0 });
  const services = { authorizer } as unknown as Services;
  const httpRequest = new HttpRequest({ method: req.method, url: `https://x${path}`, params });
  try {
    const caller = await authorizeCaller(route, httpRequest, services, principal);
    return caller.readableNames === undefined ? "all" : [...new Set(caller.readableNames.map(fold))].sort();
  } catch (error) {
    if (error instanceof AuthorizationFailed) return "deny";
    throw error;
  }
}

const grant = fc.record({
  scope: grantScope,
  role: fc.constantFrom<Role>("Owner", "Contributor", "Reader", "Twin Events Sender", "Assessment Writer"),
});

describe("authorization against a reference model of ARM's scope rules", () => {
  it("decides every request as the model does (property)", async () => {
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(
        fc.array(grant, { maxLength: 4 }),
        request,
        fc.nat(1000),
        async (grants, req, variant) => {
          const records = grants.map((g) => ({ scope: g.scope.text, roleDefinition: roleId(g.role) }));
          const decision = modelDecides(grants, req);
          expect(await serviceDecides(records, req, variant)).toEqual(decision);
          seen.add(typeof decision === "string" ? decision : "some");
        },
      ),
      { numRuns: 3000 },
    );
    // The runs reached every kind of decision: allowed, refused, and a list shown in part.
    expect([...seen].sort()).toEqual(["all", "deny", "some"]);
  });
});
