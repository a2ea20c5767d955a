import { LOCAL_TENANT_ID, principalClientId, principalObjectId } from "../openid/principals";

/**
 * The local stack's managed identities: the app's system-assigned one and two user-assigned ones,
 * their ids derived from names, so README journeys and tests can name them.
 */
export interface LocalManagedIdentity {
  name: string;
  kind: "SystemAssigned" | "UserAssigned";
  /** The ARM id (`xms_mirid`): the site's for the system-assigned identity. */
  resourceId: string;
  /** The name its ids derive from, as the token minter takes it. */
  principalName: string;
  /** Its service principal's object id: `oid` and `sub`, what role assignments name. */
  principalId: string;
  /** `appid`. */
  clientId: string;
}

/** Managed identity tokens are Entra ID v1 tokens: this issuer, which Azurite also insists on. */
export const MANAGED_IDENTITY_ISSUER = `https://sts.windows.net/${LOCAL_TENANT_ID}/`;

const GROUP_ID = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/local";

export function userAssignedIdentityId(name: string): string {
  return `${GROUP_ID}/providers/Microsoft.ManagedIdentity/userAssignedIdentities/${name}`;
}

function identity(name: string, resourceId = userAssignedIdentityId(name)): LocalManagedIdentity {
  const principalName = `managed-identity:${name}`;
  return {
    name,
    kind: name === "system-assigned" ? "SystemAssigned" : "UserAssigned",
    resourceId,
    principalName,
    principalId: principalObjectId(principalName),
    clientId: principalClientId(principalName),
  };
}

export const SYSTEM_ASSIGNED = identity(
  "system-assigned",
  `${GROUP_ID}/providers/Microsoft.Web/sites/twin-resource-service-local`,
);
/** Holds the Service Bus sender role. */
export const ENDPOINT_SENDER = identity("endpoint-sender");
/** Assigned to the app but holding no role: its sends are refused. */
export const ENDPOINT_NO_ROLE = identity("endpoint-no-role");

export const USER_ASSIGNED_IDENTITIES = [ENDPOINT_SENDER, ENDPOINT_NO_ROLE];
/** Who holds "Azure Service Bus Data Sender" locally: SERVICEBUS_DATA_SENDERS of the stack. */
export const LOCAL_SERVICEBUS_SENDERS = [SYSTEM_ASSIGNED.principalId, ENDPOINT_SENDER.principalId];

/**
 * The identity App Service's query names (client_id, mi_res_id, object_id or principal_id; ids
 * compare case-insensitively): the system-assigned one when none; undefined for one the app lacks.
 */
export function findIdentity(query: URLSearchParams): LocalManagedIdentity | undefined {
  const asked = [
    query.get("client_id"),
    query.get("mi_res_id"),
    query.get("object_id") ?? query.get("principal_id"),
  ];
  if (asked.every((value) => value === null)) return SYSTEM_ASSIGNED;
  return USER_ASSIGNED_IDENTITIES.find(({ clientId, resourceId, principalId }) =>
    [clientId, resourceId, principalId].some((id, index) => id.toLowerCase() === asked[index]?.toLowerCase()),
  );
}
