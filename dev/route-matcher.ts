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
  private readonly compiled: CompiledRoute[];

  constructor(routes: readonly RouteDefinition[], routePrefix: string) {
    const prefix = splitPath(routePrefix);
    this.compiled = routes.map((route) => ({
      route,
      segments: [...prefix, ...splitPath(route.route)].map((segment) => {
        const param = /^\{([A-Za-z0-9_]+)\}$/.exec(segment);
        return param ? { param: param[1] as string } : { literal: segment.toLowerCase() };
      }),
    }));
  }

  match(method: string, pathname: string): MatchResult {
    let segments: string[];
    try {
      segments = splitPath(pathname).map((segment) => decodeURIComponent(segment));
    } catch {
      return { kind: "not-found" };
    }
    const candidates = this.compiled
      .map((compiled) => ({ compiled, params: this.bind(compiled, segments) }))
      .filter(
        (candidate): candidate is { compiled: CompiledRoute; params: Record<string, string> } =>
          candidate.params !== undefined,
      )
      .sort((a, b) => literalCount(b.compiled) - literalCount(a.compiled));
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

  private bind(compiled: CompiledRoute, segments: string[]): Record<string, string> | undefined {
    if (compiled.segments.length !== segments.length) return undefined;
    const params: Record<string, string> = {};
    for (const [index, part] of compiled.segments.entries()) {
      const segment = segments[index] as string;
      if ("literal" in part) {
        if (part.literal !== segment.toLowerCase()) return undefined;
      } else {
        params[part.param] = segment;
      }
    }
    return params;
  }
}

function literalCount(compiled: CompiledRoute): number {
  return compiled.segments.filter((segment) => "literal" in segment).length;
}
