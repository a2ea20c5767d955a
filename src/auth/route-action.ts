import { pathSegments } from "./scope";

/** The namespace of this service's own resources, which have no ARM provider (profiles). */
export const SERVICE_NAMESPACE = "TwinResources";

const VERBS: Readonly<Record<string, string>> = {
  GET: "read",
  HEAD: "read",
  PUT: "write",
  PATCH: "write",
  DELETE: "delete",
  POST: "action",
};

/** Segments that scope resources but are no part of a resource type. */
const SCOPE_ONLY = new Set(["subscriptions", "resourcegroups"]);

/**
 * The one place a route's action is derived: `{namespace}/{type path}/{verb}` from its template and
 * method, as ARM names operations. The namespace is the last `providers/{ns}` of the path; the type
 * path is the fixed segments after it; POST names the trailing segment's action:
 * - `GET …/digitalTwinsInstances/{i}/endpoints` → `Microsoft.DigitalTwins/digitalTwinsInstances/endpoints/read`
 * - `POST …/digitalTwinsInstances/{i}/events` → `Microsoft.DigitalTwins/digitalTwinsInstances/events/action`
 * - `PUT /authenticationProfiles/{n}` → `TwinResources/authenticationProfiles/write`
 */
export function routeAction(template: string, method: string): string {
  const key = `${method.toUpperCase()} ${template}`;
  let action = derived.get(key);
  if (action === undefined) {
    action = deriveAction(template, method);
    derived.set(key, action);
  }
  return action;
}

/** Each route's action, derived once: the table is fixed, and every request asks for its route's. */
const derived = new Map<string, string>();

function deriveAction(template: string, method: string): string {
  const segments = pathSegments(template);
  let namespace = SERVICE_NAMESPACE;
  let types: string[] = [];
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index] as string;
    if (segment.startsWith("{")) continue;
    const next = segments[index + 1];
    if (segment.toLowerCase() === "providers" && next !== undefined) {
      namespace = next;
      types = [];
      index++;
    } else if (!SCOPE_ONLY.has(segment.toLowerCase())) {
      types.push(segment);
    }
  }
  const verb = VERBS[method.toUpperCase()] ?? "action";
  return [namespace, ...types, verb].join("/");
}

/** A collection read (a list): GET of a template that ends in a fixed segment. */
export function isListRoute(template: string, method: string): boolean {
  const last = pathSegments(template).at(-1);
  return method.toUpperCase() === "GET" && last !== undefined && !last.startsWith("{");
}
