import * as path from "node:path";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { planManagedIdentity } from "../../dev/identity-plan";
import { projectRoot } from "../../dev/local-paths";
import { planStack } from "../../dev/stack-plan";
import {
  ENDPOINT_NO_ROLE,
  ENDPOINT_SENDER,
  findIdentity,
  LOCAL_MANAGED_IDENTITIES,
  LOCAL_SERVICEBUS_SENDERS,
  SYSTEM_ASSIGNED,
  USER_ASSIGNED_IDENTITIES,
} from "../../dev/stand-ins/managed-identity/identities";
import { mintManagedIdentityToken, resourceOf } from "../../dev/stand-ins/managed-identity/tokens";
import { isGuid, LOCAL_TENANT_ID } from "../../dev/stand-ins/openid/principals";
import { generateSigningKey } from "../../dev/stand-ins/openid/signing-key";
import { formatSummary } from "../../dev/summary";

// The managed-identity stand-in's pure parts: who the identities are, their tokens, the plan.

describe("the local managed identities", () => {
  it("have fixed, distinct GUID principal and client ids and ARM ids", () => {
    expect(SYSTEM_ASSIGNED.resourceId).toBe(
      "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/local/providers/Microsoft.Web/sites/twin-resource-service-local",
    );
    expect(ENDPOINT_SENDER.resourceId).toBe(
      "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/local/providers/Microsoft.ManagedIdentity/userAssignedIdentities/endpoint-sender",
    );
    const ids = LOCAL_MANAGED_IDENTITIES.flatMap(({ principalId, clientId }) => [principalId, clientId]);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(isGuid(id)).toBe(true);
    // Fixed across machines and releases: README journeys and role settings name them.
    expect(SYSTEM_ASSIGNED.principalId).toBe("69d9f787-6d52-432b-b08e-ce4f2a904caf");
    expect(ENDPOINT_SENDER.principalId).toBe("59a6c9cc-101c-43af-9a40-b975e427f6af");
  });

  it("give the sender role to the system-assigned identity and endpoint-sender, not endpoint-no-role", () => {
    expect(LOCAL_SERVICEBUS_SENDERS).toEqual([SYSTEM_ASSIGNED.principalId, ENDPOINT_SENDER.principalId]);
    expect(LOCAL_SERVICEBUS_SENDERS).not.toContain(ENDPOINT_NO_ROLE.principalId);
  });

  it("are found by what App Service's query names: none (system), client id, ARM id in any case, principal id", () => {
    expect(findIdentity({})).toBe(SYSTEM_ASSIGNED);
    expect(findIdentity({ clientId: ENDPOINT_SENDER.clientId })).toBe(ENDPOINT_SENDER);
    expect(findIdentity({ resourceId: ENDPOINT_NO_ROLE.resourceId.toUpperCase() })).toBe(ENDPOINT_NO_ROLE);
    expect(findIdentity({ principalId: ENDPOINT_SENDER.principalId })).toBe(ENDPOINT_SENDER);
    expect(findIdentity({ resourceId: SYSTEM_ASSIGNED.resourceId })).toBeUndefined();
    expect(findIdentity({ clientId: "00000000-0000-0000-0000-000000000001" })).toBeUndefined();
  });
});

describe("managed identity tokens", () => {
  it("are v1 app tokens for the resource without /.default, signed RS256, for an hour", async () => {
    const key = await generateSigningKey();
    const token = await mintManagedIdentityToken(
      key,
      ENDPOINT_SENDER,
      "https://servicebus.azure.net/.default",
      1_000,
    );
    expect(token.resource).toBe("https://servicebus.azure.net");
    expect(token.expiresOn).toBe(4_600);
    expect(decodeProtectedHeader(token.accessToken)).toEqual({ alg: "RS256", kid: key.kid, typ: "JWT" });
    expect(decodeJwt(token.accessToken)).toMatchObject({
      aud: "https://servicebus.azure.net",
      iss: `https://sts.windows.net/${LOCAL_TENANT_ID}/`,
      iat: 1_000,
      nbf: 1_000,
      exp: 4_600,
      oid: ENDPOINT_SENDER.principalId,
      sub: ENDPOINT_SENDER.principalId,
      appid: ENDPOINT_SENDER.clientId,
      tid: LOCAL_TENANT_ID,
      idtyp: "app",
      ver: "1.0",
      xms_mirid: ENDPOINT_SENDER.resourceId,
    });
  });

  it("name the resource as asked, a trailing /.default removed", () => {
    expect(resourceOf("https://storage.azure.com/.default")).toBe("https://storage.azure.com");
    expect(resourceOf("https://storage.azure.com/")).toBe("https://storage.azure.com/");
  });
});

describe("the stack's identity settings", () => {
  it("point the host at the stand-in, trust the local certificate and list the user-assigned identities", () => {
    const settings: Record<string, string> = { LOCAL_DATA_DIR: "/tmp/identity-plan" };
    const plan = planManagedIdentity(settings, 17073);
    expect(settings).toMatchObject({
      IDENTITY_PORT: "17073",
      IDENTITY_ENDPOINT: "http://127.0.0.1:17073/msi/token",
      IDENTITY_HEADER: plan.header,
      NODE_EXTRA_CA_CERTS: path.join(projectRoot(), ".local", "tls", "localhost-cert.pem"),
      ENDPOINT_USER_ASSIGNED_IDENTITIES: USER_ASSIGNED_IDENTITIES.map(({ resourceId }) => resourceId).join(
        ",",
      ),
      SERVICEBUS_DATA_SENDERS: LOCAL_SERVICEBUS_SENDERS.join(","),
    });
    expect(plan.header).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(planManagedIdentity({}, 1).header).not.toBe(plan.header);
  });

  it("bundles a NODE_EXTRA_CA_CERTS the developer had with the local certificate", () => {
    const settings: Record<string, string> = { NODE_EXTRA_CA_CERTS: "/etc/company-ca.pem" };
    const plan = planManagedIdentity(settings, 1);
    expect(plan.inheritedCaFile).toBe("/etc/company-ca.pem");
    expect(settings.NODE_EXTRA_CA_CERTS).toBe(
      path.join(projectRoot(), ".local", "tls", "extra-ca-bundle.pem"),
    );
    // A later plan from the same settings (a shell that kept them) is not a new inheritance.
    expect(planManagedIdentity({ NODE_EXTRA_CA_CERTS: plan.certFile }, 1).inheritedCaFile).toBeUndefined();
  });

  it("keeps a sender list the developer set", () => {
    const settings: Record<string, string> = { SERVICEBUS_DATA_SENDERS: "x" };
    planManagedIdentity(settings, 1);
    expect(settings.SERVICEBUS_DATA_SENDERS).toBe("x");
  });

  it("are printed in the summary as the values an identity-based endpoint names", () => {
    const plan = planStack({ FUNCTION_KEY: "f", MASTER_KEY: "m" });
    const text = formatSummary(plan, undefined, { file: undefined, generated: false, previous: 0 });
    expect(text).toContain("endpointUri      sb://localhost:5671");
    expect(text).toContain("deadLetterUri    https://localhost:10443/devstoreaccount1/dead-letters");
    expect(text).toContain(ENDPOINT_SENDER.resourceId);
    expect(text).toContain(ENDPOINT_NO_ROLE.principalId);
  });
});
