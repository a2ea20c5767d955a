/** What a route is matched by: its template (`things/{name}`) and the methods it takes. */
export interface MatchableRoute {
  route: string;
  methods: readonly string[];
}

export type MatchResult<T> =
  | { kind: "matched"; match: { route: T; params: Record<string, string> } }
  | { kind: "not-found" };

type Segment = { literal: string } | { param: string };

/**
 * Matches request paths against Functions route templates the way the host does: literal
 * segments compare case-insensitively, `{name}` captures one decoded segment, and a literal
 * beats a parameter when both would match. Methods compare case-sensitively (RFC 9110 §9.1:
 * `get` is not GET). No route for the path and method: not found (the host's bare 404).
 * Paths come here with their dot segments resolved (dev/local-host.ts).
 */
export class RouteMatcher<T extends MatchableRoute> {
  private readonly routes: { route: T; segments: Segment[] }[];

  constructor(routes: readonly T[], routePrefix: string) {
    const literals = (segments: Segment[]) => segments.filter((segment) => "literal" in segment).length;
    this.routes = routes
      .map((route) => {
        const parts = `${routePrefix}/${route.route}`.split("/").filter((part) => part.length > 0);
        const segments = parts.map((part): Segment => {
          const param = /^\{([A-Za-z0-9_]+)\}$/.exec(part)?.[1];
          return param ? { param } : { literal: part.toLowerCase() };
        });
        return { route, segments };
      })
      .sort((a, b) => literals(b.segments) - literals(a.segments));
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
      const fits = parts.every((part, index) => {
        const segment = segments[index] as string;
        if ("param" in part) params[part.param] = segment;
        return "param" in part || part.literal === segment.toLowerCase();
      });
      if (fits) return { kind: "matched", match: { route, params } };
    }
    return { kind: "not-found" };
  }
}
