import {
  acceptedAudiences,
  acceptedIssuers,
  isGuid,
  issuerTenant,
  principalOf,
  principalTypeOf,
} from "../../src/auth/token-claims";

const TENANT = "72f988bf-86f1-41af-91ab-2d7cd011db47";
const CLIENT = "00000000-0000-4000-8000-0000000a0d1e";

describe("principalTypeOf", () => {
  it.each([
    [{ idtyp: "app" }, "ServicePrincipal"],
    [{ idtyp: "app", scp: "user_impersonation" }, "ServicePrincipal"],
    [{ idtyp: "user" }, "User"],
    [{ idtyp: "user", roles: ["x"] }, "User"],
    [{ scp: "user_impersonation" }, "User"],
    [{ scp: "" }, "User"],
    [{ roles: ["Events.Send"] }, "ServicePrincipal"],
    [{}, "ServicePrincipal"],
    // Only the exact values count: anything else falls back to scp.
    [{ idtyp: "APP", scp: "x" }, "User"],
    [{ idtyp: "device" }, "ServicePrincipal"],
    [{ scp: ["user_impersonation"] }, "ServicePrincipal"],
  ] as const)("%j is a %s", (claims, type) => {
    expect(principalTypeOf(claims)).toBe(type);
  });

  it("names the principal by oid and tid, lower-cased", () => {
    expect(
      principalOf({ oid: "AAAAAAAA-0000-4000-8000-000000000001", tid: TENANT.toUpperCase(), scp: "x" }),
    ).toEqual({
      kind: "entra",
      objectId: "aaaaaaaa-0000-4000-8000-000000000001",
      tenantId: TENANT,
      type: "User",
    });
  });
});

describe("acceptedAudiences", () => {
  it("admits a client id as api://{id} and an App ID URI as its client id", () => {
    expect(acceptedAudiences([CLIENT]).sort()).toEqual([CLIENT, `api://${CLIENT}`].sort());
    expect(acceptedAudiences([`api://${CLIENT}`]).sort()).toEqual([CLIENT, `api://${CLIENT}`].sort());
    expect(acceptedAudiences([CLIENT, `api://${CLIENT}`])).toHaveLength(2);
  });

  it("adds nothing for an audience that is not a GUID or its App ID URI", () => {
    expect(acceptedAudiences(["https://twins.example.com"])).toEqual(["https://twins.example.com"]);
    expect(acceptedAudiences(["api://twins"])).toEqual(["api://twins"]);
    expect(acceptedAudiences([`api://${CLIENT}/extra`])).toEqual([`api://${CLIENT}/extra`]);
    expect(acceptedAudiences([`api://${"-".repeat(36)}`])).toEqual([`api://${"-".repeat(36)}`]);
    expect(acceptedAudiences([])).toEqual([]);
  });
});

describe("acceptedIssuers", () => {
  const v2 = (host: string) => `https://${host}/${TENANT}/v2.0`;

  it.each([
    ["login.microsoftonline.com", "https://sts.windows.net/"],
    ["LOGIN.MICROSOFTONLINE.COM", "https://sts.windows.net/"],
    ["login.microsoftonline.us", "https://sts.windows.net/"],
    ["login.chinacloudapi.cn", "https://sts.chinacloudapi.cn/"],
    ["login.partner.microsoftonline.cn", "https://sts.chinacloudapi.cn/"],
  ])("for %s: the v2 issuer and the v1 issuer %s{tid}/", (host, v1) => {
    const authority = new URL(v2(host));
    expect(acceptedIssuers(v2(host), authority, TENANT)).toEqual([v2(host), `${v1}${TENANT}/`]);
  });

  it("fills a multi-tenant issuer's {tenantid} with the token's tenant, in any case of the template", () => {
    const authority = new URL("https://login.microsoftonline.com/organizations/v2.0");
    expect(acceptedIssuers("https://login.microsoftonline.com/{tenantid}/v2.0", authority, TENANT)).toEqual([
      `https://login.microsoftonline.com/${TENANT}/v2.0`,
      `https://sts.windows.net/${TENANT}/`,
    ]);
    expect(acceptedIssuers("https://login.microsoftonline.com/{TenantId}/v2.0", authority, TENANT)[0]).toBe(
      `https://login.microsoftonline.com/${TENANT}/v2.0`,
    );
  });

  it("for another authority (the loopback issuer), the v1 issuer is the v2 one without v2.0", () => {
    const issuer = `http://127.0.0.1:7072/${TENANT}/v2.0`;
    expect(acceptedIssuers(issuer, new URL(issuer), TENANT)).toEqual([
      issuer,
      `http://127.0.0.1:7072/${TENANT}/`,
    ]);
    // A loopback host never borrows a Microsoft v1 issuer.
    expect(acceptedIssuers(issuer, new URL(issuer), TENANT)).not.toContain(
      `https://sts.windows.net/${TENANT}/`,
    );
  });
});

describe("issuerTenant", () => {
  it("finds the GUID segment of a single-tenant issuer, lower-cased", () => {
    expect(issuerTenant(`https://login.microsoftonline.com/${TENANT.toUpperCase()}/v2.0`)).toBe(TENANT);
    expect(issuerTenant(`https://sts.windows.net/${TENANT}/`)).toBe(TENANT);
    expect(issuerTenant(`http://127.0.0.1:7072/${TENANT}/v2.0`)).toBe(TENANT);
  });

  it("finds none in a multi-tenant template, a host name, or something that is not a URL", () => {
    expect(issuerTenant("https://login.microsoftonline.com/{tenantid}/v2.0")).toBeUndefined();
    expect(issuerTenant(`https://${TENANT}.example.com/v2.0`)).toBeUndefined();
    expect(issuerTenant(TENANT)).toBeUndefined();
    expect(issuerTenant("")).toBeUndefined();
  });

  it("isGuid takes only the 8-4-4-4-12 shape", () => {
    expect(isGuid(TENANT)).toBe(true);
    expect(isGuid(TENANT.toUpperCase())).toBe(true);
    expect(isGuid(`${TENANT}\n`)).toBe(false);
    expect(isGuid(`{${TENANT}}`)).toBe(false);
    expect(isGuid(42)).toBe(false);
  });
});
