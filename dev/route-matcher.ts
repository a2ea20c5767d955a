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

  /**
   * The first route (in byLength's order) that matches the path and takes the method; without
   * one, every method of the routes matching the path. One pass, and no object for a route that is
   * not chosen: this runs for every request.
   */
  match(method: string, pathname: string): MatchResult {
    const segments = decodedSegments(pathname);
    if (segments === undefined) return { kind: "not-found" };
    const sameLength = this.byLength.get(segments.length);
    if (sameLength === undefined) return { kind: "not-found" };
    const lowered = segments.map((segment) => segment.toLowerCase());
    const matching: RouteDefinition[] = [];
    for (const compiled of sameLength) {
      if (!literalsMatch(compiled, lowered)) continue;
      if (compiled.route.methods.includes(method as never)) {
        return { kind: "matched", match: { route: compiled.route, params: bind(compiled, segments) } };
      }
      matching.push(compiled.route);
    }
    if (matching.length === 0) return { kind: "not-found" };
    return { kind: "method-not-allowed", allowed: methodsOf(matching) };
  }
}

/** The path's non-empty segments, each percent-decoded; undefined when one does not decode. */
function decodedSegments(pathname: string): string[] | undefined {
  const segments: string[] = [];
  for (const segment of pathname.split("/")) {
    if (segment.length === 0) continue;
    if (!segment.includes("%")) segments.push(segment);
    else {
      try {
        segments.push(decodeURIComponent(segment));
      } catch {
        return undefined;
      }
    }
  }
  return segments;
}

/** Whether every literal segment of the route is the path's (lower-cased) segment there. */
function literalsMatch(compiled: CompiledRoute, lowered: string[]): boolean {
  const parts = compiled.segments;
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index] as CompiledRoute["segments"][number];
    if ("literal" in part && part.literal !== lowered[index]) return false;
  }
  return true;
}

/** The route's parameters from the path's segments, as decoded. */
function bind(compiled: CompiledRoute, segments: string[]): Record<string, string> {
  const parts = compiled.segments;
  const params: Record<string, string> = {};
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index] as CompiledRoute["segments"][number];
    if ("param" in part) params[part.param] = segments[index] as string;
  }
  return params;
}
