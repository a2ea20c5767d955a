import fc from "fast-check";
import { ASSESSMENT_TYPE } from "../../src/assessments/assessment-path";
import { BUILT_IN_ROLES } from "../../src/auth/role-definitions";
import { MAX_EVENT_BYTES } from "../../src/events/queue-message";
import type { RouteDefinition } from "../../src/http/route";
import { CREDENTIAL_KEYS } from "../../src/profiles/profile-content";
import { routeDefinitions } from "../../src/triggers/routes";
import { FUNCTION_KEY, MASTER_KEY, startTestHost, type TestHost } from "../support/test-host";
import { type Forbidden, logLeaks, report, violations } from "./checks";
import { hostileHost } from "./hostile-inputs";
import {
  type FuzzContext,
  type Mode,
  pathPools,
  type RouteFuzzSpec,
  requestArbitrary,
  strayRequestArbitrary,
} from "./requests";
import { connectionString, deadLetterSecret, SECRET_MARKERS } from "./secrets";
import { closeConnections, type Exchange, FuzzRequest, Memory, mapLimit, send } from "./wire";
import { OMIT } from "./zod-arbitrary";

const routes = routeDefinitions();

/**
 * Property-based fuzzing of every route of the table, over HTTP against a local host (issue
 * "Hardening: hostile input"). Invariants: no 5xx, ARM-shaped 4xx with x-ms-request-id, no secret
 * or key in any answer or log line, 2xx bodies valid against the route's documented schema, and
 * the host's own answers (401, 405, 413) where the request calls for them.
 *
 * FUZZ_SEED (default below) makes a run reproducible; every failure prints it (and fast-check's
 * per-property seed, derived from it and the test name). The host's state is built by the requests
 * themselves, so rerun the whole file with that FUZZ_SEED (or `-t` one test: same inputs, fresher
 * state). FUZZ_RUNS is the number of requests, about, across all properties. The race and quota
 * properties do not shrink: a smaller input rarely replays a race, and a count is the state all
 * earlier runs built. FUZZ_TALLY=1 prints, at the end, how each kind of request was answered.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const RUNS = Number(process.env.FUZZ_RUNS ?? 5000);
const TALLY = process.env.FUZZ_TALLY === "1";
const CONCURRENCY = 4;
const MAX_BATCH = 6;

jest.setTimeout(600_000);

const forbidden: Forbidden = { texts: [...SECRET_MARKERS, FUNCTION_KEY, MASTER_KEY] };
/** What was sent and answered, per route and mode: shows which paths the run reached. */
const tally = new Map<string, Map<number, number>>();

// Echo fields hold their current value, or are left out; anything else is a 400.
const instanceId = (p: Record<string, string>) =>
  `/subscriptions/${p.subscriptionId}/resourceGroups/${p.resourceGroupName}/providers/Microsoft.DigitalTwins/digitalTwinsInstances/${p.instanceName}`;
const assessmentId = (p: Record<string, string>) =>
  `/subscriptions/${p.subscriptionId}/resourceGroups/${p.resourceGroupName}/providers/Microsoft.Migrate/assessmentProjects/${p.projectName}/clusterAssessments/${p.assessmentName}`;

const profileContent = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 })
      .map((o) => JSON.stringify(o)),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 100, max: 3000 }), fc.constantFrom("x", "é", "😀"))
      .map(([n, unit]) => JSON.stringify({ blob: unit.repeat(n) })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(...CREDENTIAL_KEYS), fc.boolean())
      .map(([key, upper]) => JSON.stringify({ nested: [{ [upper ? key.toUpperCase() : key]: "x" }] })),
  },
  { weight: 1, arbitrary: fc.constantFrom("[]", "null", '"x"', "{", "", "{}") },
);

/** Events of exactly the one-event limit (give or take a byte), in batches that need several queue messages. */
const eventsAtTheLimits = fc
  .tuple(
    fc.integer({ min: 1, max: 24 }),
    fc.constantFrom(-1, 0, 0, 0, 1),
    fc.constantFrom("", "é", "😀", "\u0000"),
  )
  .map(([count, delta, prefix]) =>
    Array.from({ length: count }, (_, index) => {
      const event = {
        id: `bulk-${index}`,
        source: "/fuzz",
        specversion: "1.0",
        type: "Fuzz.Bulk",
        data: prefix,
      };
      const room = MAX_EVENT_BYTES + delta - Buffer.byteLength(JSON.stringify(event));
      return { ...event, data: prefix + "x".repeat(Math.max(0, room)) };
    }),
  );

/** Filters: valid ones, ones that try the parser (nesting, length, quotes, escapes, Unicode), and noise. */
const routeFilter = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      "true",
      "$body.temperature > 30 AND type = 'Twin.Update'",
      "NOT (STARTS_WITH(subject, 'a\\'b') OR $body['k'][0] = null)",
      "CONTAINS($body.name, '\u00e9😀')",
    ),
  },
  {
    weight: 2,
    arbitrary: fc
      .integer({ min: 1, max: 200 })
      .map((depth) => `${"(".repeat(depth)}true${")".repeat(depth)}`),
  },
  { weight: 1, arbitrary: fc.integer({ min: 2000, max: 70_000 }).map((n) => `subject = '${"x".repeat(n)}'`) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 5000 }).map((n) => `${"NOT ".repeat(n)}true`) },
  { weight: 3, arbitrary: fc.string({ unit: "grapheme", maxLength: 80 }) },
);

const rarely = <T>(arbitrary: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 9, arbitrary: fc.constant(OMIT) }, { weight: 1, arbitrary });

interface Group {
  name: string;
  tags: string[];
  spec: RouteFuzzSpec;
  /** Share of the runs. */
  weight: number;
  /** What the host must hold before the group's runs (the endpoints that routes name). */
  setUp?: () => Promise<void>;
}

const groups: Group[] = [
  { name: "operations (health, openapi)", tags: ["Operations"], spec: {}, weight: 1 },
  {
    name: "authentication profiles",
    tags: ["AuthenticationProfile"],
    weight: 3,
    spec: {
      bodyOverrides: { authenticationProfileContent: profileContent },
      echoes: {
        authenticationProfileName: (p) => p.authenticationProfileName ?? "",
        id: (p) => p.authenticationProfileName ?? "",
      },
    },
  },
  {
    name: "queue endpoints",
    tags: ["QueueEndpoint"],
    weight: 3,
    spec: {
      bodyOverrides: {
        queuePrimaryConnectionString: connectionString(),
        queueSecondaryConnectionString: connectionString(),
        deadLetterStorageSecret: fc.oneof(
          { weight: 6, arbitrary: deadLetterSecret },
          { weight: 1, arbitrary: fc.constant(null) },
        ),
      },
      echoes: {
        name: (p) => p.endpointName ?? "",
        twinsInstanceId: instanceId,
        id: (p) => `${instanceId(p)}/endpoints/${p.endpointName}`,
      },
    },
  },
  {
    name: "event routes",
    tags: ["EventRoute"],
    weight: 2,
    setUp: () => createPoolEndpoints(host),
    spec: {
      bodyOverrides: {
        filter: routeFilter,
        // Mostly the endpoints the queue endpoints' group makes (the pools are made below, before any run).
        endpointName: fc.oneof(
          {
            weight: 4,
            arbitrary: fc.constant(0).chain(() => fc.constantFrom(...(pools.endpointName ?? []))),
          },
          { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
        ),
        systemData: rarely(fc.constant({})),
      },
      echoes: {
        name: (p) => p.eventRouteName ?? "",
        id: (p) => `${instanceId(p)}/eventRoutes/${p.eventRouteName}`,
      },
    },
  },
  { name: "twin events", tags: ["TwinEvents"], weight: 1.5, spec: { bodies: eventsAtTheLimits } },
  {
    name: "cluster assessments",
    tags: ["ClusterAssessment"],
    weight: 2.5,
    spec: {
      bodyOverrides: { eTag: rarely(fc.string()), systemData: rarely(fc.constant({})) },
      echoes: { id: assessmentId, name: (p) => p.assessmentName ?? "", type: () => ASSESSMENT_TYPE },
    },
  },
];

groups.push({
  name: "role assignments",
  tags: ["RoleAssignment"],
  weight: 1.5,
  spec: {
    bodyOverrides: {
      principalId: fc.uuid(),
      roleDefinitionName: fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...BUILT_IN_ROLES.map((role) => role.roleName)) },
        { weight: 1, arbitrary: fc.string() },
      ),
      roleDefinitionId: rarely(
        fc.constantFrom(
          ...BUILT_IN_ROLES.map((role) => `/providers/Microsoft.Authorization/roleDefinitions/${role.name}`),
        ),
      ),
      systemData: rarely(fc.constant({})),
    },
  },
});

const MODES: { mode: Mode; weight: number }[] = [
  { mode: "valid", weight: 0.4 },
  { mode: "mutated", weight: 0.35 },
  { mode: "hostile", weight: 0.25 },
];
/** The budget's other shares, next to the groups' weights. */
const SHARES = { unrouted: 0.3, hostileHost: 0.2, races: 0.4, tinyQuotas: 1 };
const totalWeight =
  groups.reduce((sum, group) => sum + group.weight, 0) + Object.values(SHARES).reduce((sum, n) => sum + n, 0);

/** Property runs for a share of the request budget (a run sends a batch of 1 to MAX_BATCH requests). */
function numRuns(share: number): number {
  return Math.max(5, Math.round((RUNS * share) / totalWeight / ((1 + MAX_BATCH) / 2)));
}

/** Each property's seed: FUZZ_SEED and the test's name, so `-t` picks the same inputs as a full run. */
function propertySeed(): number {
  const name = expect.getState().currentTestName ?? "";
  let hash = 0;
  for (const char of name) hash = (Math.imul(hash, 31) + (char.codePointAt(0) ?? 0)) | 0;
  return (SEED + hash) | 0;
}

/** Requests a few milliseconds apart, so that concurrent ones interleave in many orders. */
const jittered = (requests: fc.Arbitrary<FuzzRequest>, maxDelayMs: number) =>
  fc
    .tuple(requests, fc.integer({ min: 0, max: maxDelayMs }))
    .map(([request, delay]) => request.delayed(delay));

/** Batches of up to MAX_BATCH requests, sent concurrently. */
const concurrently = (requests: fc.Arbitrary<FuzzRequest>) =>
  fc.array(jittered(requests, 4), { minLength: 1, maxLength: MAX_BATCH }).map((batch) => [batch]);

/**
 * Sends each generated run: stages one after the other, the requests of a stage concurrently. Any
 * violation fails the property with the request as sent; `afterRun` may check the state after each
 * run. `shrink: false` for races, which a smaller input rarely replays.
 */
async function fuzz(
  host: () => TestHost,
  memory: Memory,
  runs: fc.Arbitrary<FuzzRequest[][]>,
  share: number,
  { shrink = true, afterRun }: { shrink?: boolean; afterRun?: () => Promise<string[]> } = {},
) {
  const seed = propertySeed();
  await fc.assert(
    fc.asyncProperty(runs, async (stages) => {
      const { baseUrl, logs } = host();
      const logsBefore = logs.length;
      const exchanges: Exchange[] = [];
      for (const stage of stages) {
        exchanges.push(...(await mapLimit(stage, CONCURRENCY, (request) => send(baseUrl, request, memory))));
      }
      const newLogs = logs.slice(logsBefore);
      for (const exchange of exchanges) {
        const counts = tally.get(exchange.request.intent.label) ?? new Map<number, number>();
        const status = exchange.answer?.status ?? 0;
        tally.set(exchange.request.intent.label, counts.set(status, (counts.get(status) ?? 0) + 1));
        const found = violations(exchange, forbidden);
        if (found.length > 0) throw new Error(`FUZZ_SEED=${SEED}\n${report(exchange, found, newLogs)}`);
      }
      const problems = [...logLeaks(newLogs, forbidden), ...((await afterRun?.()) ?? [])];
      if (problems.length > 0) throw new Error(`FUZZ_SEED=${SEED}\n${problems.join("\n")}`);
    }),
    { seed, numRuns: numRuns(share), endOnFailure: !shrink },
  );
}

function routesOf(group: Group): RouteDefinition[] {
  return routes.filter((route) => group.tags.includes(route.doc.tag));
}

let host: TestHost;
const memory = new Memory();
const pools = pathPools(
  routes,
  SEED,
  {
    authenticationProfileName: 10,
    endpointName: 8,
    eventRouteName: 6,
    assessmentName: 8,
    subscriptionId: 1,
    resourceGroupName: 2,
    instanceName: 2,
    projectName: 2,
    roleAssignmentName: 4,
  },
  { authenticationProfileName: 2, endpointName: 2, assessmentName: 2 },
);

beforeAll(async () => {
  host = await startTestHost({ AUTH_PROFILE_MAX_COUNT: "1000", ENDPOINTS_PER_INSTANCE_MAX: "100" });
});
afterAll(async () => {
  await host?.stop();
  closeConnections();
  if (!TALLY) return;
  const lines = [...tally.entries()].sort().map(([label, counts]) => {
    const statuses = [...counts.entries()].sort(([a], [b]) => a - b);
    return `${label.padEnd(40)} ${statuses.map(([status, count]) => `${status}:${count}`).join(" ")}`;
  });
  const total = [...tally.values()].flatMap((counts) => [...counts.values()]).reduce((sum, n) => sum + n, 0);
  console.log(`fuzz: seed ${SEED}, ${total} requests\n${lines.join("\n")}`);
});

it("fuzzes every route of the table", () => {
  const covered = groups.flatMap(routesOf).map((route) => route.name);
  expect(covered.sort()).toEqual(routes.map((route) => route.name).sort());
});

/** Every pool endpoint in every pool instance, so that valid routes to them get stored. */
async function createPoolEndpoints(target: TestHost): Promise<void> {
  const connection =
    "Endpoint=sb://fuzz-ns.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=ZnV6eg==;EntityPath=fuzz";
  const body = JSON.stringify({
    queuePrimaryConnectionString: connection,
    queueSecondaryConnectionString: connection,
  });
  for (const subscriptionId of pools.subscriptionId ?? [])
    for (const resourceGroupName of pools.resourceGroupName ?? [])
      for (const instanceName of pools.instanceName ?? [])
        for (const endpointName of pools.endpointName ?? []) {
          const instance = instanceId({ subscriptionId, resourceGroupName, instanceName });
          const path = `${instance}/endpoints/${endpointName}`.split("/").map(encodeURIComponent).join("/");
          const response = await target.request(path, { method: "PUT", body });
          if (response.status >= 300) throw new Error(`${path}: ${response.status} ${await response.text()}`);
        }
}

for (const group of groups) {
  describe(group.name, () => {
    if (group.setUp) beforeAll(group.setUp);
    for (const { mode, weight } of MODES) {
      it(`keeps the invariants under ${mode} requests`, async () => {
        const context: FuzzContext = { routes, pools, spec: group.spec };
        const requests = fc.oneof(...routesOf(group).map((route) => requestArbitrary(route, mode, context)));
        await fuzz(() => host, memory, concurrently(requests), group.weight * weight);
      });
    }
  });
}

describe("the host's front", () => {
  it("answers ARM-shaped 404s and 405s for paths no route serves", async () => {
    await fuzz(() => host, memory, concurrently(strayRequestArbitrary), SHARES.unrouted);
  });

  it("answers requests whose Host header or target the URL parser refuses", async () => {
    const valid = fc.oneof(
      ...routes.map((route) => requestArbitrary(route, "valid", { routes, pools, spec: {} })),
    );
    const withHost = fc.tuple(valid, hostileHost).map(
      ([request, hostHeader]) =>
        new FuzzRequest(
          request.method,
          request.target,
          { ...request.headers, host: hostHeader },
          request.body,
          {
            ...request.intent,
            routable: false,
            label: `${request.intent.label}+host`,
          },
        ),
    );
    const protocolRelative = fc.tuple(valid, fc.constantFrom("/", "//evil.example", "///")).map(
      ([request, prefix]) =>
        new FuzzRequest(request.method, `${prefix}${request.target}`, request.headers, request.body, {
          ...request.intent,
          routable: false,
          label: `${request.intent.label}+target`,
        }),
    );
    await fuzz(() => host, memory, concurrently(fc.oneof(withHost, protocolRelative)), SHARES.hostileHost);
  });
});

/** A valid request for `route`, with its group's overrides and the given pools. */
function validRequest(route: RouteDefinition, poolsToUse: FuzzContext["pools"]) {
  const group = groups.find((candidate) => candidate.tags.includes(route.doc.tag));
  return requestArbitrary(route, "valid", { routes, pools: poolsToUse, spec: group?.spec ?? {} });
}

describe("racing writes", () => {
  it("keeps the invariants while writes and deletes race on one resource", async () => {
    // One (sampled) value per path parameter: a PUT makes the resource, then writes, reads and
    // deletes go at it concurrently.
    const onePerName = Object.fromEntries(
      Object.entries(pools).map(([name, values]) => [name, values.slice(-1)]),
    );
    const races = ["AuthenticationProfile", "QueueEndpoint", "ClusterAssessment"].map((tag) => {
      const item = routes.filter(
        (route) => route.doc.tag === tag && route.doc.pathParameters && !route.doc.paged,
      );
      const put = item.find((route) => route.methods.includes("PUT"));
      if (!put) throw new Error(`${tag}: no PUT route`);
      const racers = fc.array(
        jittered(fc.oneof(...item.map((route) => validRequest(route, onePerName))), 15),
        {
          minLength: 2,
          maxLength: MAX_BATCH,
        },
      );
      return fc.tuple(validRequest(put, onePerName), racers).map(([first, rest]) => [[first], rest]);
    });
    await fuzz(() => host, memory, fc.oneof(...races), SHARES.races, { shrink: false });
  });
});

describe("tiny quotas", () => {
  const limits = {
    AUTH_PROFILE_MAX_COUNT: "2",
    ENDPOINTS_PER_INSTANCE_MAX: "2",
    ROUTES_PER_INSTANCE_MAX: "2",
    AUTH_PROFILE_CONTENT_MAX_BYTES: "1024",
  };
  let tiny: TestHost;
  const tinyMemory = new Memory();
  beforeAll(async () => {
    tiny = await startTestHost(limits);
  });
  afterAll(() => tiny?.stop());

  /** Every list the tiny quotas bound, with more items than the quota. */
  async function overQuota(): Promise<string[]> {
    const lists: [path: string, what: string][] = [["/authenticationProfiles", "profiles"]];
    for (const subscriptionId of pools.subscriptionId ?? []) {
      for (const resourceGroupName of pools.resourceGroupName ?? []) {
        for (const instanceName of pools.instanceName ?? []) {
          const instance = instanceId({ subscriptionId, resourceGroupName, instanceName });
          const path = instance.split("/").map(encodeURIComponent).join("/");
          lists.push([`${path}/endpoints`, `endpoints of ${instance}`]);
          lists.push([`${path}/eventRoutes`, `event routes of ${instance}`]);
        }
      }
    }
    const found: string[] = [];
    const listed = new Map<string, { id: string; name: string; endpointName?: string }[]>();
    for (const [path, what] of lists) {
      const body = (await (await tiny.request(`${path}?$top=1000`)).json()) as {
        value: { id: string; name: string; endpointName?: string }[];
      };
      listed.set(path, body.value);
      if (body.value.length > 2) {
        found.push(
          `quota exceeded: ${body.value.length} ${what} (quota 2): ${body.value.map((item) => item.id).join(", ")}`,
        );
      }
    }
    // No route names an endpoint that is not there, whatever deletes raced its write.
    for (const [path, routesListed] of listed) {
      if (!path.endsWith("/eventRoutes")) continue;
      const endpoints = (listed.get(path.replace(/eventRoutes$/, "endpoints")) ?? []).map((each) =>
        each.name.toLowerCase(),
      );
      for (const route of routesListed)
        if (!endpoints.includes(String(route.endpointName).toLowerCase()))
          found.push(`route ${route.id} names the endpoint '${route.endpointName}', which is not stored`);
    }
    return found;
  }

  it("keeps the invariants, and the quotas, while creates and deletes race", async () => {
    const writes = routes.filter(
      (route) =>
        ["AuthenticationProfile", "QueueEndpoint", "EventRoute"].includes(route.doc.tag) &&
        (route.methods.includes("PUT") || route.methods.includes("DELETE")),
    );
    const requests = fc.oneof(...writes.map((route) => validRequest(route, pools)));
    // No shrinking: the count is the state all earlier runs built, not what one run sent.
    await fuzz(() => tiny, tinyMemory, concurrently(requests), SHARES.tinyQuotas, {
      afterRun: overQuota,
      shrink: false,
    });
  });
});
