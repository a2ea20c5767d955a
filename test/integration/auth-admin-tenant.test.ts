import { LOCAL_TENANT_ID, type OpenIdIssuer, principalObjectId } from "../../dev/stand-ins/openid-issuer";
import { expectArmError } from "../support/arm";
import { ADMIN, adminEntraSettings, asPrincipal } from "../support/entra-host";
import { startTestHost, type TestHost } from "../support/test-host";
import { entraSettings, startTestIssuer } from "../support/test-issuer";

// CONTRACT §6 over the wire: AUTH_ADMIN_PRINCIPALS names an object id in a tenant. A token of another
// allowed tenant carrying an administrator's object id is someone else, and holds nothing.
const OTHER_TENANT = "11111111-2222-4333-8444-555555555555";
/** The administrator of the other tenant, named with its tenant. */
const OTHER_ADMIN = "other-admin";
const PROFILE = JSON.stringify({ authenticationProfileContent: '{"mode":"sso"}' });

let issuer: OpenIdIssuer;
/** Takes tokens of two tenants (a multi-tenant authority): every administrator names its tenant. */
let twoTenants: TestHost;
/** The local issuer's own tenant only, whose administrator is a bare object id. */
let oneTenant: TestHost;

function as(host: TestHost, name: string, tenantId: string) {
  return asPrincipal(host, issuer, { name, tenantId });
}

async function forbidden(response: Response, name: string): Promise<void> {
  const error = await expectArmError(response, 403, "AuthorizationFailed");
  expect(error.message).toContain(`'${principalObjectId(name)}'`);
}

beforeAll(async () => {
  issuer = await startTestIssuer();
  twoTenants = await startTestHost({
    ...entraSettings(issuer),
    AUTH_AUTHORITY: `${issuer.origin}/organizations/v2.0`,
    AUTH_ALLOWED_TENANTS: `${LOCAL_TENANT_ID},${OTHER_TENANT}`,
    AUTH_ADMIN_PRINCIPALS: `${LOCAL_TENANT_ID.toUpperCase()}/${principalObjectId(ADMIN).toUpperCase()}, ${OTHER_TENANT}/${principalObjectId(OTHER_ADMIN)}`,
    AUTH_CACHE_SECONDS: "0",
  });
  oneTenant = await startTestHost(adminEntraSettings(issuer));
});
afterAll(async () => {
  await twoTenants?.stop();
  await oneTenant?.stop();
  await issuer?.close();
});

describe("an administrator's object id in another allowed tenant", () => {
  it("is refused (403) where the administrator in its own tenant is Owner at '/'", async () => {
    const admin = as(twoTenants, ADMIN, LOCAL_TENANT_ID);
    expect((await admin("/authenticationProfiles")).status).toBe(200);
    expect((await admin("/authenticationProfiles/by-admin", { method: "PUT", body: PROFILE })).status).toBe(
      201,
    );

    const impostor = as(twoTenants, ADMIN, OTHER_TENANT);
    await forbidden(await impostor("/authenticationProfiles"), ADMIN);
    await forbidden(await impostor("/authenticationProfiles/by-admin"), ADMIN);
    await forbidden(
      await impostor("/authenticationProfiles/by-impostor", { method: "PUT", body: PROFILE }),
      ADMIN,
    );
    // What it was refused was not done.
    expect((await admin("/authenticationProfiles/by-impostor")).status).toBe(404);
  });

  it("holds for an administrator named with the other tenant too: Owner there, nobody here", async () => {
    expect((await as(twoTenants, OTHER_ADMIN, OTHER_TENANT)("/authenticationProfiles")).status).toBe(200);
    await forbidden(
      await as(twoTenants, OTHER_ADMIN, LOCAL_TENANT_ID)("/authenticationProfiles"),
      OTHER_ADMIN,
    );
  });

  it("is refused by the authorizer, not the token validator: the other tenant's token is good", async () => {
    const response = await as(twoTenants, ADMIN, OTHER_TENANT)("/authenticationProfiles");
    expect(response.status).toBe(403);
    expect(response.headers.get("www-authenticate")).toBeNull();
  });
});

describe("a bare object id", () => {
  it("is the administrator in the authority's own tenant", async () => {
    expect(oneTenant.config.AUTH_ADMIN_PRINCIPALS).toEqual([{ objectId: principalObjectId(ADMIN) }]);
    expect((await as(oneTenant, ADMIN, LOCAL_TENANT_ID)("/authenticationProfiles")).status).toBe(200);
  });
});
