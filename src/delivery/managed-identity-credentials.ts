import type { TokenCredential } from "@azure/core-auth";
import { identityKey, type ManagedIdentity } from "../endpoints/managed-identity";

/**
 * One credential per managed identity for the life of the process, shared by every Service Bus
 * client and blob container that uses the identity: a credential caches its token until shortly
 * before it expires, so one per client would ask the identity endpoint again for each.
 * `@azure/identity` is loaded on first use: deployments with KeyBased endpoints only never load it.
 */
export class ManagedIdentityCredentials {
  private readonly credentials = new Map<string, TokenCredential>();

  constructor(
    private readonly create: (identity: ManagedIdentity) => TokenCredential = managedIdentityCredential,
  ) {}

  of(identity: ManagedIdentity | undefined): TokenCredential {
    const key = identityKey(identity);
    let credential = this.credentials.get(key);
    if (!credential) {
      credential = this.create(identity ?? { type: "SystemAssigned" });
      this.credentials.set(key, credential);
    }
    return credential;
  }
}

/**
 * The App Service identity endpoint's credential (Functions on Flex Consumption): the
 * system-assigned identity, or a user-assigned one by its resource id, which the endpoint takes
 * as `mi_res_id`. Locally the stand-in behind IDENTITY_ENDPOINT answers the same protocol.
 */
function managedIdentityCredential(identity: ManagedIdentity): TokenCredential {
  const { ManagedIdentityCredential } = require("@azure/identity") as typeof import("@azure/identity");
  return identity.type === "UserAssigned"
    ? new ManagedIdentityCredential({ resourceId: identity.userAssignedIdentity })
    : new ManagedIdentityCredential();
}

/** The process's credentials: the sender pool, the dead-letter writer and redelivery share them. */
export const processCredentials = new ManagedIdentityCredentials();
