import { HttpRequest } from "@azure/functions";
import { ConfigError, loadConfig } from "../../src/config";
import { nextLink } from "../../src/http/paging";
import { publicBaseUrl } from "../../src/http/public-url";
import { thrown } from "../support/thrown";

// docs/api.md: PUBLIC_BASE_URL, else the host name the platform vouches for,
// never the request's Host header (which, in Azure, is what request.url is built from).
const valid = {
  COSMOS_ENDPOINT: "https://127.0.0.1:8081/",
  COSMOS_KEY: "key",
  AzureWebJobsStorage: "UseDevelopmentStorage=true",
  SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64"),
  AUTH_MODE: "keys",
};

const spoofed = new HttpRequest({
  method: "GET",
  url: "https://evil.example/authenticationProfiles?$top=1&code=secret-key",
  headers: { host: "evil.example", "x-forwarded-host": "evil.example" },
});

describe("PUBLIC_BASE_URL", () => {
  it("is optional, and taken as an absolute http(s) URL", () => {
    expect(loadConfig(valid).PUBLIC_BASE_URL).toBeUndefined();
    expect(
      loadConfig({ ...valid, PUBLIC_BASE_URL: "https://api.contoso.example/twins" }).PUBLIC_BASE_URL,
    ).toBe("https://api.contoso.example/twins");
  });

  it.each([
    "api.contoso.example",
    "/twins",
    "ftp://api.contoso.example",
    "https://api.contoso.example/?a=1",
    "https://u:p@api.contoso.example",
    "https://api.contoso.example/#x",
  ])("refuses %s, naming the setting but not the value", (value) => {
    const error = thrown(() => loadConfig({ ...valid, PUBLIC_BASE_URL: value }));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      "PUBLIC_BASE_URL must be an http(s) URL without query, fragment or user information",
    ]);
    expect((error as ConfigError).message).not.toContain(value);
  });
});

describe("publicBaseUrl", () => {
  it("prefers PUBLIC_BASE_URL, without its trailing slash", () => {
    const env = { WEBSITE_HOSTNAME: "twins.azurewebsites.net" };
    expect(publicBaseUrl(spoofed, { PUBLIC_BASE_URL: "https://API.contoso.example/twins/" }, env)).toBe(
      "https://api.contoso.example/twins",
    );
  });

  it("else uses the host name Azure sets, over https (http on loopback, as Core Tools sets it)", () => {
    expect(publicBaseUrl(spoofed, {}, { WEBSITE_HOSTNAME: "twins.azurewebsites.net" })).toBe(
      "https://twins.azurewebsites.net",
    );
    expect(publicBaseUrl(spoofed, {}, { WEBSITE_HOSTNAME: "localhost:7071" })).toBe("http://localhost:7071");
  });

  it("ignores a WEBSITE_HOSTNAME that is not a host name", () => {
    const local = new HttpRequest({ method: "GET", url: "http://127.0.0.1:7071/x" });
    expect(publicBaseUrl(local, {}, { WEBSITE_HOSTNAME: "evil.example/path?" })).toBe(
      "http://127.0.0.1:7071",
    );
  });
});

describe("nextLink", () => {
  it("puts the request's path and query under the public base, without the key", () => {
    const link = new URL(
      nextLink(spoofed, '"token"', { PUBLIC_BASE_URL: "https://api.contoso.example/twins" }, "list-a"),
    );
    expect(`${link.origin}${link.pathname}`).toBe("https://api.contoso.example/twins/authenticationProfiles");
    expect(link.searchParams.get("$top")).toBe("1");
    const token = Buffer.from(link.searchParams.get("$skipToken") ?? "", "base64url").toString("utf8");
    expect(JSON.parse(token)).toEqual({ l: "list-a", c: '"token"' });
    expect(link.searchParams.has("code")).toBe(false);
  });
});
