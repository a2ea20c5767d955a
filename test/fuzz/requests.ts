import fc from "fast-check";
import type { z } from "zod";
import type { RouteDefinition } from "../../src/http/route";
import { FUNCTION_KEY, MASTER_KEY } from "../support/test-host";
import * as hostile from "./hostile-inputs";
import { FuzzRequest, type Intent, type KeyPlacement, Payload } from "./wire";
import { OMIT, zodArbitrary } from "./zod-arbitrary";

/**
 * Requests for one route, from its `doc`: path parameters and body from the zod schemas, the
 * documented api-versions, paging and content types. Three modes:
 * - valid: what a careful client sends (success paths, quotas, conflicts, conditional writes);
 * - mutated: a valid request with one or two things wrong (field, key, method, header, query);
 * - hostile: traversal, huge, deep, malformed and unicode input everywhere.
 */
export type Mode = "valid" | "mutated" | "hostile";

export interface RouteFuzzSpec {
  /** Arbitraries for body fields the zod walk cannot honour (superRefine'd strings). */
  bodyOverrides?: Record<string, fc.Arbitrary<unknown>>;
  /** More valid bodies than the walk makes (sizes at a limit, big batches), mixed in with the walk's. */
  bodies?: fc.Arbitrary<unknown>;
  /** Read-only body fields that must equal something in the path: how to compute it. */
  echoes?: Record<string, (params: Record<string, string>) => string>;
}

export interface FuzzContext {
  /** The whole route table: a request with another method goes to whichever route serves it. */
  routes: readonly RouteDefinition[];
  /** Small pools of valid path-parameter values, so requests keep meeting the same resources. */
  pools: Record<string, readonly string[]>;
  spec: RouteFuzzSpec;
}

const METHODS = ["GET", "PUT", "POST", "PATCH", "DELETE", "OPTIONS", "HEAD"] as const;

/**
 * Valid names that trip code keyed by them: Object.prototype's members (a name used as a key of a
 * plain object) and blank-looking strings (stores and SDKs that trim).
 */
export const EDGE_NAMES = [
  "constructor",
  " ",
  "__proto__",
  "hasOwnProperty",
  "\u3000",
  "toString",
  "\ufeff",
  "CON",
];

/**
 * Small pools of valid values per path parameter name, sampled from the schemas with the seed,
 * led by `edges[name]` of the EDGE_NAMES the schema accepts.
 */
export function pathPools(
  routes: readonly RouteDefinition[],
  seed: number,
  sizes: Record<string, number>,
  edges: Record<string, number> = {},
): Record<string, string[]> {
  const pools: Record<string, string[]> = {};
  for (const route of routes) {
    for (const [name, schema] of Object.entries(route.doc.pathParameters?.shape ?? {})) {
      if (pools[name]) continue;
      const field = schema as z.ZodType;
      const usable = (value: unknown): value is string =>
        typeof value === "string" && field.safeParse(value).success && routableValue(value);
      const sampled = fc.sample(zodArbitrary(field), { seed: seed + name.length * 7919, numRuns: 200 });
      const edge = EDGE_NAMES.filter(usable).slice(0, edges[name] ?? 0);
      pools[name] = [...new Set([...edge, ...sampled.filter(usable).slice(0, sizes[name] ?? 3)])];
    }
  }
  return pools;
}

interface Segment {
  wire: string;
  routable: boolean;
  value?: string;
}

function routableValue(value: string): boolean {
  if (value === "" || value === "." || value === "..") return false;
  try {
    encodeURIComponent(value);
    return true;
  } catch {
    return false; // a lone surrogate: the router cannot decode it
  }
}

function rawSegment(wire: string): Segment {
  let decoded: string | undefined;
  try {
    decoded = decodeURIComponent(wire);
  } catch {
    decoded = undefined;
  }
  const routable =
    decoded !== undefined && decoded !== "" && !/[/\\?#]/.test(wire) && !/^(?:\.|%2e){1,2}$/i.test(wire);
  return { wire, routable };
}

function valueSegment(value: string): Segment {
  return { wire: hostile.encodeSegment(value), routable: routableValue(value), value };
}

const cased = (value: string) => fc.constantFrom(value, value.toUpperCase(), value.toLowerCase());

function paramSegment(schema: z.ZodType, pool: readonly string[], mode: Mode): fc.Arbitrary<Segment> {
  const pooled = pool.length > 0 ? fc.constantFrom(...pool) : zodArbitrary(schema).map(String);
  const fresh = zodArbitrary(schema).map(String);
  const choices: Record<Mode, fc.WeightedArbitrary<Segment>[]> = {
    valid: [
      { weight: 8, arbitrary: pooled.map(valueSegment) },
      { weight: 1, arbitrary: fresh.map(valueSegment) },
    ],
    mutated: [
      { weight: 4, arbitrary: pooled.map(valueSegment) },
      { weight: 2, arbitrary: pooled.chain(cased).map(valueSegment) },
      { weight: 1, arbitrary: fresh.map(valueSegment) },
      { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 80 }).map(valueSegment) },
    ],
    hostile: [
      { weight: 2, arbitrary: pooled.map(valueSegment) },
      { weight: 3, arbitrary: hostile.hostileSegment.map(rawSegment) },
    ],
  };
  return fc.oneof(...choices[mode]);
}

function pathArbitrary(route: RouteDefinition, mode: Mode, pools: FuzzContext["pools"]) {
  const shape = route.doc.pathParameters?.shape ?? {};
  const parts = route.route.split("/").map((part) => {
    const param = /^\{(\w+)\}$/.exec(part)?.[1];
    if (param) {
      const schema = shape[param] as z.ZodType | undefined;
      if (!schema) throw new Error(`${route.name}: no schema for path parameter ${param}`);
      return paramSegment(schema, pools[param] ?? [], mode).map((segment) => ({ ...segment, name: param }));
    }
    const literal = mode === "valid" ? fc.constant(part) : cased(part);
    return literal.map((wire) => ({
      wire,
      routable: true,
      value: wire,
      name: undefined as string | undefined,
    }));
  });
  return fc.tuple(...parts).map((segments) => ({
    path: `/${segments.map((segment) => segment.wire).join("/")}`,
    routable: segments.every((segment) => segment.routable),
    params: Object.fromEntries(
      segments.flatMap((segment) =>
        segment.name && segment.value !== undefined ? [[segment.name, segment.value]] : [],
      ),
    ) as Record<string, string>,
  }));
}

function queryArbitrary(route: RouteDefinition, mode: Mode): fc.Arbitrary<string[]> {
  const versions = route.doc.apiVersions ?? [];
  const otherVersions = ["2026-11-01", "2023-04-01-preview", "2023-09-09-preview"];
  const apiVersion = fc.oneof(
    { weight: 3, arbitrary: fc.constant<string[]>([]) },
    ...(versions.length > 0
      ? [{ weight: 3, arbitrary: fc.constantFrom(...versions).map((v) => [`api-version=${v}`]) }]
      : []),
    ...(mode === "valid"
      ? []
      : [
          { weight: 1, arbitrary: fc.constantFrom(...otherVersions).map((v) => [`api-version=${v}`]) },
          { weight: 2, arbitrary: hostile.hostileApiVersion.map((v) => [`api-version=${v}`]) },
          { weight: 1, arbitrary: fc.constant(["api-version=2026-11-01", "api-version=latest"]) },
        ]),
  );
  const paging = route.doc.paged
    ? fc.oneof(
        { weight: 3, arbitrary: fc.constant<string[]>([]) },
        { weight: 2, arbitrary: fc.integer({ min: 1, max: 1000 }).map((top) => [`$top=${top}`]) },
        { weight: 1, arbitrary: fc.constantFrom(1, 2).map((top) => [`$top=${top}`]) },
        ...(mode === "valid"
          ? []
          : [
              { weight: 2, arbitrary: hostile.hostileTop.map((top) => [`$top=${top}`]) },
              { weight: 2, arbitrary: hostile.hostileSkipToken.map((token) => [`$skipToken=${token}`]) },
            ]),
      )
    : fc.constant<string[]>([]);
  const noise =
    mode === "valid"
      ? fc.constant<string[]>([])
      : fc.oneof(
          { weight: 6, arbitrary: fc.constant<string[]>([]) },
          {
            weight: 1,
            arbitrary: fc.constantFrom(
              ["foo=bar"],
              ["API-VERSION=x"],
              ["=", "&&"],
              ["%zz=%zz"],
              [`a=${"q".repeat(2000)}`],
            ),
          },
        );
  return fc.tuple(apiVersion, paging, noise).map((lists) => lists.flat());
}

function keyArbitrary(route: RouteDefinition, mode: Mode): fc.Arbitrary<KeyPlacement> {
  if (mode === "valid") {
    return fc.oneof(
      { weight: 8, arbitrary: fc.constant<KeyPlacement>("header") },
      { weight: 1, arbitrary: fc.constantFrom<KeyPlacement>("query", "both") },
      ...(route.authLevel === "function"
        ? [{ weight: 1, arbitrary: fc.constant<KeyPlacement>("master") }]
        : []),
    );
  }
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant<KeyPlacement>("header") },
    {
      weight: 3,
      arbitrary: fc.constantFrom<KeyPlacement>(
        "query",
        "both",
        "master",
        "function",
        "none",
        "wrong",
        "empty",
      ),
    },
  );
}

const wrongKey = fc.constantFrom(
  "wrong",
  FUNCTION_KEY.toUpperCase(),
  `${FUNCTION_KEY}x`,
  "k".repeat(3000),
  "\u00e9\u00ff",
);

function contentTypeArbitrary(route: RouteDefinition, mode: Mode): fc.Arbitrary<string | undefined> {
  const documented = route.doc.requestBody?.contentTypes ?? ["application/json"];
  const good = fc.constantFrom(...documented, ...documented.map((type) => `${type}; charset=utf-8`));
  if (mode === "valid") return good;
  return fc.oneof({ weight: 3, arbitrary: good }, { weight: 1, arbitrary: hostile.hostileContentType });
}

type Preconditions = { headers: Record<string, string | string[]>; known?: Intent["knownEtag"] };

function preconditionsArbitrary(mode: Mode): fc.Arbitrary<Preconditions> {
  const none: Preconditions = { headers: {} };
  const valid: fc.WeightedArbitrary<Preconditions>[] = [
    { weight: 8, arbitrary: fc.constant(none) },
    { weight: 2, arbitrary: fc.constant<Preconditions>({ headers: {}, known: "if-match" }) },
    { weight: 1, arbitrary: fc.constant<Preconditions>({ headers: {}, known: "if-none-match" }) },
    { weight: 1, arbitrary: fc.constant<Preconditions>({ headers: { "if-match": "*" } }) },
    { weight: 1, arbitrary: fc.constant<Preconditions>({ headers: { "if-none-match": "*" } }) },
  ];
  if (mode === "valid") return fc.oneof(...valid);
  return fc.oneof(
    ...valid,
    { weight: 2, arbitrary: hostile.hostileEtag.map((etag) => ({ headers: { "if-match": etag } })) },
    { weight: 2, arbitrary: hostile.hostileEtag.map((etag) => ({ headers: { "if-none-match": etag } })) },
  );
}

function toSnakeCase(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toSnakeCase);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
      toSnakeCase(item),
    ]),
  );
}

/** A body the route's schema accepts (as far as the walk and the overrides can tell). */
function validBody(
  route: RouteDefinition,
  spec: RouteFuzzSpec,
): fc.Arbitrary<(params: Record<string, string>) => unknown> {
  const schema = route.doc.requestBody?.schema;
  if (!schema) return fc.constant(() => undefined);
  const overrides = { ...spec.bodyOverrides };
  // Server-made fields: left out; the echoes below decide when to send them back.
  for (const field of Object.keys(spec.echoes ?? {})) overrides[field] = fc.constant(OMIT);
  const echoChoices = Object.keys(spec.echoes ?? {}).map((field) =>
    fc.tuple(fc.constant(field), fc.constantFrom("omit", "omit", "path", "path-cased")),
  );
  const walked = zodArbitrary(schema, { overrides });
  const bodies = spec.bodies
    ? fc.oneof({ weight: 4, arbitrary: walked }, { weight: 1, arbitrary: spec.bodies })
    : walked;
  return fc
    .tuple(bodies, fc.tuple(...echoChoices), fc.nat(9))
    .map(([body, echoes, snake]) => (params: Record<string, string>) => {
      if (body !== null && typeof body === "object" && !Array.isArray(body)) {
        const record = body as Record<string, unknown>;
        for (const [field, choice] of echoes) {
          const echo = spec.echoes?.[field];
          if (!echo || choice === "omit") continue;
          const value = echo(params);
          record[field] = choice === "path-cased" ? value.toUpperCase() : value;
        }
      }
      return snake === 0 ? toSnakeCase(body) : body;
    });
}

type Mutation = {
  kind: "drop" | "unknown" | "retype" | "duplicate" | "recase" | "wrap" | "string";
  at: number;
  value: unknown;
  key: string;
};

const mutationArbitrary: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom("drop", "unknown", "retype", "retype", "duplicate", "recase", "wrap", "string"),
  at: fc.nat(),
  value: fc.oneof(hostile.hostileValue, fc.jsonValue({ maxDepth: 2 })),
  key: fc.oneof(
    fc.constantFrom("unexpected", "ID", "etag", "__proto__", "constructor", "data_base64"),
    hostile.hostileString,
  ),
});

/** Every (object, key) pair in a JSON value, depth first. */
function fields(
  value: unknown,
  found: [Record<string, unknown>, string][] = [],
): [Record<string, unknown>, string][] {
  if (Array.isArray(value)) for (const item of value) fields(item, found);
  else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      found.push([value as Record<string, unknown>, key]);
      fields(item, found);
    }
  }
  return found;
}

function mutate(body: unknown, mutation: Mutation): unknown {
  const copy = structuredClone(body);
  const all = fields(copy);
  const target = all[mutation.at % Math.max(1, all.length)];
  const root =
    copy !== null && typeof copy === "object" && !Array.isArray(copy)
      ? (copy as Record<string, unknown>)
      : {};
  switch (mutation.kind) {
    case "wrap":
      return [copy, copy];
    case "string":
      return JSON.stringify(copy);
    case "unknown":
      (target?.[0] ?? root)[mutation.key] = mutation.value;
      return copy;
  }
  if (!target) return mutation.value;
  const [parent, key] = target;
  if (mutation.kind === "drop") delete parent[key];
  if (mutation.kind === "retype") parent[key] = mutation.value;
  if (mutation.kind === "duplicate")
    parent[key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] = parent[key];
  if (mutation.kind === "recase") {
    parent[key.toUpperCase() === key ? key.toLowerCase() : key.toUpperCase()] = parent[key];
    delete parent[key];
  }
  return copy;
}

function bodyArbitrary(route: RouteDefinition, mode: Mode, spec: RouteFuzzSpec) {
  type MakeBody = (params: Record<string, string>) => Payload | undefined;
  const none = fc.constant<MakeBody>(() => undefined);
  if (!route.doc.requestBody) {
    if (mode === "valid") return none;
    const stray = mode === "mutated" ? fc.constant(Payload.text('{"x":1}')) : hostile.hostileBody;
    return fc.oneof(
      { weight: 6, arbitrary: none },
      { weight: 1, arbitrary: stray.map((body) => () => body) },
    );
  }
  const valid = validBody(route, spec);
  const asJson = valid.map<MakeBody>((make) => (params) => Payload.json(make(params)));
  if (mode === "valid") return asJson;
  const mutated = fc.tuple(valid, mutationArbitrary).map<MakeBody>(
    ([make, mutation]) =>
      (params) =>
        Payload.json(mutate(make(params), mutation)),
  );
  if (mode === "mutated")
    return fc.oneof({ weight: 1, arbitrary: asJson }, { weight: 4, arbitrary: mutated });
  const field = Object.keys(spec.bodyOverrides ?? {})[0] ?? "value";
  return fc.oneof(
    { weight: 2, arbitrary: hostile.hostileBody.map<MakeBody>((body) => () => body) },
    { weight: 1, arbitrary: hostile.hugeBody(field).map<MakeBody>((body) => () => body) },
    { weight: 2, arbitrary: mutated },
  );
}

/** The route that serves `method` on the template of `route`, as the host will pick it. */
function resolve(routes: readonly RouteDefinition[], template: string, method: string) {
  return routes.find(
    (candidate) => candidate.route === template && candidate.methods.includes(method as never),
  );
}

function keyIsValid(route: RouteDefinition | undefined, key: string | undefined): boolean {
  if (!route || route.authLevel === "anonymous") return true;
  if (key === MASTER_KEY) return true;
  return route.authLevel === "function" && key === FUNCTION_KEY;
}

export function requestArbitrary(
  route: RouteDefinition,
  mode: Mode,
  context: FuzzContext,
): fc.Arbitrary<FuzzRequest> {
  const method = route.methods[0] as string;
  const methodArbitrary =
    mode === "valid"
      ? fc.constant(method)
      : fc.oneof(
          { weight: 10, arbitrary: fc.constant(method) },
          { weight: 1, arbitrary: fc.constantFrom(...METHODS) },
        );
  const extraHeaders =
    mode === "hostile"
      ? fc.oneof(fc.constant({}), hostile.hostileHeaders)
      : fc.constant<Record<string, string | string[]>>({});
  return fc
    .record({
      method: methodArbitrary,
      path: pathArbitrary(route, mode, context.pools),
      query: queryArbitrary(route, mode),
      keyPlacement: keyArbitrary(route, mode),
      wrongKey,
      contentType: contentTypeArbitrary(route, mode),
      preconditions: preconditionsArbitrary(mode),
      knownSkipToken: route.doc.paged ? fc.boolean() : fc.constant(false),
      extraHeaders,
      body: bodyArbitrary(route, mode, context.spec),
    })
    .map((parts) => {
      const rightKey = route.authLevel === "admin" ? MASTER_KEY : FUNCTION_KEY;
      const headers: Record<string, string | string[]> = {
        ...parts.extraHeaders,
        ...parts.preconditions.headers,
      };
      const query = [...parts.query];
      const keyByPlacement: Record<KeyPlacement, { header?: string; code?: string }> = {
        header: { header: rightKey },
        query: { code: rightKey },
        both: { header: rightKey, code: parts.wrongKey },
        master: { header: MASTER_KEY },
        function: { header: FUNCTION_KEY },
        none: {},
        wrong: { header: parts.wrongKey },
        empty: { header: "" },
      };
      const key = keyByPlacement[parts.keyPlacement];
      if (key.header !== undefined) headers["x-functions-key"] = key.header;
      if (key.code !== undefined) query.push(`code=${encodeURIComponent(key.code)}`);
      const body = parts.body(parts.path.params);
      if (body !== undefined && parts.contentType !== undefined) headers["content-type"] = parts.contentType;
      const served = resolve(context.routes, route.route, parts.method);
      const intent: Intent = {
        route: served,
        methodNotAllowed: served === undefined,
        routable: parts.path.routable && !("host" in headers),
        keyValid: keyIsValid(served, key.header ?? key.code),
        ...(parts.preconditions.known && { knownEtag: parts.preconditions.known }),
        knownSkipToken: parts.knownSkipToken && mode !== "hostile",
        label: `${route.name}/${mode}`,
      };
      const target = hostile.wireSafe(parts.path.path + (query.length > 0 ? `?${query.join("&")}` : ""));
      return new FuzzRequest(parts.method, target, headers, body, intent);
    })
    .filter(withinHeaderLimit);
}

/** Node refuses a request head over 16 KiB with its own 431 before any route runs: stay under it. */
export function withinHeaderLimit(request: FuzzRequest): boolean {
  const headers = Object.entries(request.headers).flatMap(([name, value]) =>
    (Array.isArray(value) ? value : [value]).map((item) => name.length + item.length + 4),
  );
  return request.target.length + headers.reduce((sum, size) => sum + size, 0) < 14_000;
}

/** Requests for paths no route serves: the host must still answer ARM-shaped 404s (or 405s). */
export const strayRequestArbitrary: fc.Arbitrary<FuzzRequest> = fc
  .tuple(
    fc.constantFrom(...METHODS),
    fc.oneof(
      fc.constantFrom(
        "/",
        "/..",
        "/../..",
        "/%2e%2e/health",
        "/health/",
        "/HEALTH",
        "/openapi.json/x",
        "/authenticationProfiles/a/b",
        "/authenticationProfiles//",
        "/subscriptions",
        "/subscriptions/x/resourceGroups/y/providers/Microsoft.DigitalTwins/digitalTwinsInstances",
        "*",
        "/\\..\\..\\etc\\passwd",
        "/%ZZ",
        `/${"a/".repeat(2000)}`,
      ),
      fc
        .array(hostile.hostileSegment, { minLength: 1, maxLength: 4 })
        .map((segments) => `/${segments.join("/")}`)
        // "//x" is a protocol-relative target: the Host-header property covers those.
        .filter((target) => !target.startsWith("//")),
    ),
    fc.option(hostile.hostileBody, { freq: 3 }),
  )
  .map(
    ([method, target, body]) =>
      new FuzzRequest(
        method,
        target,
        { "x-functions-key": FUNCTION_KEY, "content-type": "application/json" },
        body ?? undefined,
        {
          route: undefined,
          methodNotAllowed: false,
          routable: false,
          keyValid: true,
          label: "unrouted",
        },
      ),
  );
