import fc from "fast-check";
import { RouteMatcher } from "../../dev/route-matcher";
import type { RouteDefinition } from "../../src/http/route";

const handler = async () => ({ status: 200 });
const route = (name: string, template: string, methods: RouteDefinition["methods"]): RouteDefinition => ({
  name,
  route: template,
  methods,
  authLevel: "function",
  handler,
  doc: { summary: name, tag: "test", responses: [], errors: [] },
});

const matcher = new RouteMatcher(
  [
    route("item", "things/{name}", ["GET", "PUT"]),
    route("special", "things/special", ["GET"]),
    route("list", "things", ["GET"]),
  ],
  "",
);

describe("RouteMatcher", () => {
  it("matches literal segments case-insensitively and decodes parameters", () => {
    const result = matcher.match("GET", "/THINGS/a%20b");
    expect(result).toEqual({ kind: "matched", match: expect.objectContaining({ params: { name: "a b" } }) });
  });

  it("prefers a literal segment over a parameter", () => {
    const result = matcher.match("GET", "/things/special");
    expect(result.kind === "matched" && result.match.route.name).toBe("special");
  });

  it("finds nothing for a method no template of the path takes, as the host answers 404", () => {
    expect(matcher.match("DELETE", "/things/x").kind).toBe("not-found");
    expect(matcher.match("PUT", "/things/special").kind).toBe("matched");
    expect(matcher.match("GET", "/nothing/here").kind).toBe("not-found");
    expect(matcher.match("GET", "/things/%E0%A4%A").kind).toBe("not-found");
  });

  it("compares methods case-sensitively (RFC 9110 §9.1), and an empty segment matches no template", () => {
    expect(matcher.match("get", "/things").kind).toBe("not-found");
    expect(matcher.match("GET", "/things//x").kind).toBe("not-found");
    expect(matcher.match("GET", "/things/").kind).toBe("matched");
  });

  it("applies the route prefix", () => {
    const prefixed = new RouteMatcher([route("list", "things", ["GET"])], "api");
    expect(prefixed.match("GET", "/api/things").kind).toBe("matched");
    expect(prefixed.match("GET", "/things").kind).toBe("not-found");
  });

  it("answers any path and method as matching every template in turn would", () => {
    const table = [
      route("item", "things/{name}", ["GET", "PUT"]),
      route("special", "things/special", ["GET"]),
      route("list", "things", ["GET"]),
      route("child", "things/{name}/parts/{part}", ["GET", "DELETE"]),
      route("action", "things/{name}/parts/start", ["POST"]),
      route("other", "{kind}/special", ["PATCH"]),
    ];
    const tableMatcher = new RouteMatcher(table, "api");
    /** The rule in plain words: of the templates the path fits, the most literal one taking the method. */
    const expected = (method: string, path: string) => {
      let segments: string[];
      try {
        const raw = path.split("/").slice(1);
        if (raw.length > 1 && raw.at(-1) === "") raw.pop();
        segments = raw.map(decodeURIComponent);
      } catch {
        return { kind: "not-found" };
      }
      const fits = table
        .map((entry) => ({ entry, parts: ["api", ...entry.route.split("/")] }))
        .filter(({ parts }) => parts.length === segments.length)
        .filter(({ parts }) =>
          parts.every((part, i) => part.startsWith("{") || part === segments[i]?.toLowerCase()),
        )
        .sort(
          (a, b) =>
            b.parts.filter((p) => !p.startsWith("{")).length -
            a.parts.filter((p) => !p.startsWith("{")).length,
        );
      if (fits.length === 0) return { kind: "not-found" };
      const chosen = fits.find(({ entry }) => entry.methods.includes(method as never));
      if (!chosen) return { kind: "not-found" };
      const params: Record<string, string> = {};
      chosen.parts.forEach((part, i) => {
        if (part.startsWith("{")) params[part.slice(1, -1)] = segments[i] as string;
      });
      return { kind: "matched", match: { route: chosen.entry, params } };
    };
    const segment = fc.constantFrom(
      "api",
      "API",
      "things",
      "Things",
      "special",
      "parts",
      "start",
      "x",
      "%41",
      "%E0%A4%A",
      "a%20b",
      "",
    );
    fc.assert(
      fc.property(
        fc.constantFrom("GET", "PUT", "POST", "PATCH", "DELETE", "get"),
        fc.array(segment, { maxLength: 6 }),
        (method, parts) => {
          const path = `/${parts.join("/")}`;
          expect(tableMatcher.match(method, path)).toEqual(expected(method, path));
        },
      ),
      { numRuns: 3000 },
    );
  });
});
