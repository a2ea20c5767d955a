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
});
