import { LOCAL_TENANT_ID, principalClientId, principalObjectId } from "../openid/principals";

/**
 * The managed identities of the local stack: the app's system-assigned one and two user-assigned
 * ones. Everything is fixed or derived from a name, so ids are the same on every machine and in
 * every start, and a README journey or a test can name them.
 */
export interface LocalManagedIdentity {
  /** A short name for messages and the summary. */
  name: string;
  kind: "SystemAssigned" | "UserAssigned";
  /** The ARM id: the site's for the system-assigned identity (`xms_mirid`), the identity's own otherwise. */
  resourceId: string;
  /** Its principal's name for the token minter (openid/tokens.ts), from which its ids derive. */
  principalName: string;
  /** The object id of its service principal: `oid` and `sub` of its tokens, what role assignments name. */
  principalId: string;
  /** Its client id: `appid` of its tokens. */
  clientId: string;
}

export const LOCAL_SUBSCRIPTION_ID = "00000000-0000-0000-0000-000000000000";
export const LOCAL_RESOURCE_GROUP = "local";
/** Managed identity tokens are Entra ID v1 tokens: this issuer, which Azurite also insists on. */
export const MANAGED_IDENTITY_ISSUER = `https://sts.windows.net/${LOCAL_TENANT_ID}/`;

const GROUP_ID = `/subscriptions/${LOCAL_SUBSCRIPTION_ID}/resourceGroups/${LOCAL_RESOURCE_GROUP}`;

function identity(
  name: string,
  kind: LocalManagedIdentity["kind"],
  resourceId: string,
): LocalManagedIdentity {
  const principalName = `managed-identity:${name}`;
  return {
    name,
    kind,
    resourceId,
    principalName,
    principalId: principalObjectId(principalName),
    clientId: principalClientId(principalName),
  };
}

export function userAssignedIdentityId(name: string): string {
  return `${GROUP_ID}/providers/Microsoft.ManagedIdentity/userAssignedIdentities/${name}`;
}

/** The function app's own identity (no options to ManagedIdentityCredential). */
export const SYSTEM_ASSIGNED = identity(
  "system-assigned",
  "SystemAssigned",
  `${GROUP_ID}/providers/Microsoft.Web/sites/twin-resource-service-local`,
);
/** A user-assigned identity that holds the Service Bus sender role. */
export const ENDPOINT_SENDER = identity(
  "endpoint-sender",
  "UserAssigned",
  userAssignedIdentityId("endpoint-sender"),
);
/** A user-assigned identity assigned to the app but holding no role: its sends are refused. */
export const ENDPOINT_NO_ROLE = identity(
  "endpoint-no-role",
  "UserAssigned",
  userAssignedIdentityId("endpoint-no-role"),
);

export const LOCAL_MANAGED_IDENTITIES: readonly LocalManagedIdentity[] = [
  SYSTEM_ASSIGNED,
  ENDPOINT_SENDER,
  ENDPOINT_NO_ROLE,
];
export const USER_ASSIGNED_IDENTITIES = LOCAL_MANAGED_IDENTITIES.filter(
  ({ kind }) => kind === "UserAssigned",
);
/** Who holds "Azure Service Bus Data Sender" on the local namespace: SERVICEBUS_DATA_SENDERS of the stack. */
export const LOCAL_SERVICEBUS_SENDERS = [SYSTEM_ASSIGNED.principalId, ENDPOINT_SENDER.principalId];

/** How a token request names a user-assigned identity (App Service's query parameters). */
export interface IdentitySelector {
  clientId?: string;
  resourceId?: string;
  principalId?: string;
}

/**
 * The identity a request asks for: the system-assigned one when it names none; undefined when it
 * names one the app does not have. ARM ids compare case-insensitively, GUIDs too.
 */
export function findIdentity(selector: IdentitySelector): LocalManagedIdentity | undefined {
  const { clientId, resourceId, principalId } = selector;
  if (clientId === undefined && resourceId === undefined && principalId === undefined) return SYSTEM_ASSIGNED;
  const same = (a: string, b: string | undefined) => b !== undefined && a.toLowerCase() === b.toLowerCase();
  return USER_ASSIGNED_IDENTITIES.find(
    (each) =>
      same(each.clientId, clientId) ||
      same(each.resourceId, resourceId) ||
      same(each.principalId, principalId),
  );
}
