/** What a route is matched by: its template (`things/{name}`) and the methods it takes. */
export interface MatchableRoute {
  route: string;
  methods: readonly string[];
}

export type MatchResult<T> =
  | { kind: "matched"; match: { route: T; params: Record<string, string> } }
  | { kind: "not-found" };

interface CompiledRoute<T> {
  route: T;
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
 * `get` is not GET). No route for the path and method: not found (the host's bare 404).
 * Paths come here with their dot segments resolved (dev/local-host.ts).
 */
export class RouteMatcher<T extends MatchableRoute> {
  private readonly routes: CompiledRoute<T>[];

  constructor(routes: readonly T[], routePrefix: string) {
    const prefix = splitPath(routePrefix);
    this.routes = routes
      .map((route) => {
        const segments = [...prefix, ...splitPath(route.route)].map((segment) => {
          const param = /^\{([A-Za-z0-9_]+)\}$/.exec(segment);
          return param ? { param: param[1] as string } : { literal: segment.toLowerCase() };
        });
        return { route, segments, literals: segments.filter((segment) => "literal" in segment).length };
      })
      .sort((a, b) => b.literals - a.literals);
  }

  match(method: string, pathname: string): MatchResult<T> {
    // An empty segment (`//`) matches no template; a trailing slash is allowed, as the host allows it.
    const raw = pathname.split("/").slice(1);
    if (raw.length > 1 && raw.at(-1) === "") raw.pop();
    let segments: string[];
    try {
      segments = raw.map(decodeURIComponent);
    } catch {
      return { kind: "not-found" };
    }
    for (const { route, segments: parts } of this.routes) {
      if (parts.length !== segments.length || !route.methods.includes(method)) continue;
      const params: Record<string, string> = {};
      const matches = parts.every((part, index) => {
        const segment = segments[index] as string;
        if ("literal" in part) return part.literal === segment.toLowerCase();
        params[part.param] = segment;
        return true;
      });
      if (matches) return { kind: "matched", match: { route, params } };
    }
    return { kind: "not-found" };
  }
}
