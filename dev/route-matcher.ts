import { methodsOf } from "../src/http/method-not-allowed";
import type { RouteDefinition } from "../src/http/route";

export interface RouteMatch {
  route: RouteDefinition;
  params: Record<string, string>;
}

export type MatchResult =
  | { kind: "matched"; match: RouteMatch }
  /** `allowed`: every method the routes matching the path take, for the Allow header. */
  | { kind: "method-not-allowed"; allowed: string[] }
  | { kind: "not-found" };

interface CompiledRoute {
  route: RouteDefinition;
  segments: ({ literal: string } | { param: string })[];
  /** How many segments are literal: the more, the more specific the route. */
  literals: number;
}

function splitPath(pathname: string): string[] {
  return pathname.split("/").filter((segment) => segment.length > 0);
}

/**
 * Matches request paths against Functions route templates the way the host does: literal
 * segments compare case-insensitively, `{name}` captures one decoded segment, and a literal
 * beats a parameter when both would match. Methods compare case-sensitively (RFC 9110 §9.1:
 * `get` is not GET).
 */
export class RouteMatcher {
  /**
   * The routes by their number of segments (a path can only match a route of its own length), most
   * literal segments first, then in table order.
   */
  private readonly byLength = new Map<number, CompiledRoute[]>();

  constructor(routes: readonly RouteDefinition[], routePrefix: string) {
    const prefix = splitPath(routePrefix);
    for (const route of routes) {
      const segments = [...prefix, ...splitPath(route.route)].map((segment) => {
        const param = /^\{([A-Za-z0-9_]+)\}$/.exec(segment);
        return param ? { param: param[1] as string } : { literal: segment.toLowerCase() };
      });
      const compiled = {
        route,
        segments,
        literals: segments.filter((segment) => "literal" in segment).length,
      };
      const sameLength = this.byLength.get(segments.length);
      if (sameLength) sameLength.push(compiled);
      else this.byLength.set(segments.length, [compiled]);
    }
    // Most literal segments first, once (a stable sort: table order breaks ties), so the routes
    // matching a path come out in the order they are tried in, without sorting them each request.
    for (const sameLength of this.byLength.values()) sameLength.sort((a, b) => b.literals - a.literals);
  }

  match(method: string, pathname: string): MatchResult {
    let segments: string[];
    try {
      segments = splitPath(pathname).map((segment) =>
        segment.includes("%") ? decodeURIComponent(segment) : segment,
      );
    } catch {
      return { kind: "not-found" };
    }
    const sameLength = this.byLength.get(segments.length);
    if (sameLength === undefined) return { kind: "not-found" };
    const lowered = segments.map((segment) => segment.toLowerCase());
    // Routes that match the path, most literal segments first (as byLength keeps them).
    const candidates: { compiled: CompiledRoute; params: Record<string, string> }[] = [];
    for (const compiled of sameLength) {
      const params = bind(compiled, segments, lowered);
      if (params !== undefined) candidates.push({ compiled, params });
    }
    if (candidates.length === 0) return { kind: "not-found" };
    const chosen = candidates.find((candidate) => candidate.compiled.route.methods.includes(method as never));
    if (!chosen) {
      return {
        kind: "method-not-allowed",
        allowed: methodsOf(candidates.map((candidate) => candidate.compiled.route)),
      };
    }
    return { kind: "matched", match: { route: chosen.compiled.route, params: chosen.params } };
  }
}

/** The route's parameters from the path's segments (as decoded, and lower-cased), or undefined. */
function bind(
  compiled: CompiledRoute,
  segments: string[],
  lowered: string[],
): Record<string, string> | undefined {
  const parts = compiled.segments;
  if (parts.length !== segments.length) return undefined;
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index] as CompiledRoute["segments"][number];
    if ("literal" in part && part.literal !== lowered[index]) return undefined;
  }
  const params: Record<string, string> = {};
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index] as CompiledRoute["segments"][number];
    if ("param" in part) params[part.param] = segments[index] as string;
  }
  return params;
}
