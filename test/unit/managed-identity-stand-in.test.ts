import { planManagedIdentity, planStack } from "../../dev/stack-plan";
import {
  ENDPOINT_NO_ROLE,
  ENDPOINT_SENDER,
  findIdentity,
  LOCAL_SERVICEBUS_SENDERS,
  SYSTEM_ASSIGNED,
  USER_ASSIGNED_IDENTITIES,
} from "../../dev/stand-ins/managed-identity/identities";
import { isGuid } from "../../dev/stand-ins/openid/principals";
import { formatSummary } from "../../dev/summary";

// The managed-identity stand-in's pure parts: who the identities are, and the stack's plan.
// (Its tokens, with ManagedIdentityCredential: test/integration/identity-stand-ins.test.ts.)

it("has fixed, distinct ids, the sender role for the system-assigned identity and endpoint-sender", () => {
  expect(SYSTEM_ASSIGNED.resourceId).toBe(
    "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/local/providers/Microsoft.Web/sites/twin-resource-service-local",
  );
  expect(ENDPOINT_SENDER.resourceId).toBe(
    "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/local/providers/Microsoft.ManagedIdentity/userAssignedIdentities/endpoint-sender",
  );
  const ids = [SYSTEM_ASSIGNED, ...USER_ASSIGNED_IDENTITIES].flatMap((each) => [
    each.principalId,
    each.clientId,
  ]);
  expect(new Set(ids).size).toBe(6);
  expect(ids.every(isGuid)).toBe(true);
  // Fixed across machines and releases: README journeys and role settings name them.
  expect(SYSTEM_ASSIGNED.principalId).toBe("69d9f787-6d52-432b-b08e-ce4f2a904caf");
  expect(ENDPOINT_SENDER.principalId).toBe("59a6c9cc-101c-43af-9a40-b975e427f6af");
  expect(LOCAL_SERVICEBUS_SENDERS).toEqual([SYSTEM_ASSIGNED.principalId, ENDPOINT_SENDER.principalId]);
});

it("finds identities by App Service's query: none (system), client id, ARM id in any case, principal id", () => {
  const find = (query: Record<string, string>) => findIdentity(new URLSearchParams(query));
  expect(find({})).toBe(SYSTEM_ASSIGNED);
  expect(find({ client_id: ENDPOINT_SENDER.clientId })).toBe(ENDPOINT_SENDER);
  expect(find({ mi_res_id: ENDPOINT_NO_ROLE.resourceId.toUpperCase() })).toBe(ENDPOINT_NO_ROLE);
  expect(find({ principal_id: ENDPOINT_SENDER.principalId })).toBe(ENDPOINT_SENDER);
  expect(find({ object_id: ENDPOINT_NO_ROLE.principalId })).toBe(ENDPOINT_NO_ROLE);
  expect(find({ mi_res_id: SYSTEM_ASSIGNED.resourceId })).toBeUndefined();
  expect(find({ client_id: "00000000-0000-0000-0000-000000000001" })).toBeUndefined();
});

describe("the stack's identity settings", () => {
  it("point the host at the stand-in and list the user-assigned identities", () => {
    const settings: Record<string, string> = { LOCAL_DATA_DIR: "/tmp/identity-plan" };
    const plan = planManagedIdentity(settings, 17073);
    expect(settings).toMatchObject({
      IDENTITY_PORT: "17073",
      IDENTITY_ENDPOINT: "http://127.0.0.1:17073/msi/token",
      IDENTITY_HEADER: plan.header,
      ENDPOINT_USER_ASSIGNED_IDENTITIES: `${ENDPOINT_SENDER.resourceId},${ENDPOINT_NO_ROLE.resourceId}`,
      SERVICEBUS_DATA_SENDERS: LOCAL_SERVICEBUS_SENDERS.join(","),
    });
    expect(plan.header).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(planManagedIdentity({}, 1).header).not.toBe(plan.header);
  });

  it("keep the developer's senders", () => {
    const settings: Record<string, string> = { SERVICEBUS_DATA_SENDERS: "x" };
    planManagedIdentity(settings, 1);
    expect(settings.SERVICEBUS_DATA_SENDERS).toBe("x");
  });

  it("are printed in the summary as the values an identity-based endpoint names", () => {
    const key = { file: undefined, generated: false, previous: 0 };
    const text = formatSummary(planStack({ FUNCTION_KEY: "f", MASTER_KEY: "m" }), undefined, key);
    expect(text).toContain("endpointUri      sb://localhost:5671");
    expect(text).toContain("deadLetterUri    https://localhost:10443/devstoreaccount1/dead-letters");
    expect(text).toContain(ENDPOINT_SENDER.resourceId);
    expect(text).toContain(ENDPOINT_NO_ROLE.principalId);
  });
});
