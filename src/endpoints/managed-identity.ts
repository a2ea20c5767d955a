import { parseArmId } from "../auth/arm-id";
import { nameKey } from "../common/name-key";
import { z } from "../common/zod";

/**
 * The managed identity an identity-based endpoint sends and dead-letters with, as Azure Digital
 * Twins names it: the app's system-assigned identity, or one of the user-assigned identities
 * attached to the app (ENDPOINT_USER_ASSIGNED_IDENTITIES) by its ARM id.
 */
export type ManagedIdentity =
  | { type: "SystemAssigned" }
  | { type: "UserAssigned"; userAssignedIdentity: string };

const USER_ASSIGNED_TYPE = nameKey("Microsoft.ManagedIdentity/userAssignedIdentities");

/**
 * Whether `text` is the id of a user-assigned identity, read as ARM reads ids (arm-id.ts: by
 * position, so a resource group named `providers` is a name), its last level of that type.
 */
export function isUserAssignedIdentityId(text: string): boolean {
  const id = parseArmId(text);
  return id?.levels.length === 3 && id.levels[2]?.typeKey === USER_ASSIGNED_TYPE;
}

export const managedIdentitySchema = z
  .discriminatedUnion("type", [
    z.strictObject({ type: z.literal("SystemAssigned") }),
    z.strictObject({
      type: z.literal("UserAssigned"),
      userAssignedIdentity: z.string().max(1024).refine(isUserAssignedIdentityId, {
        message:
          "must be the ARM id of a user-assigned identity: /subscriptions/{id}/resourceGroups/{group}/providers/Microsoft.ManagedIdentity/userAssignedIdentities/{name}",
      }),
    }),
  ])
  .meta({
    description:
      "The managed identity the service sends and dead-letters with: the app's system-assigned identity (the default), or a user-assigned identity attached to it (ENDPOINT_USER_ASSIGNED_IDENTITIES).",
  });

/** One spelling per identity (ARM ids compare case-insensitively): what clients and credentials are keyed by. */
export function identityKey(identity: ManagedIdentity | undefined): string {
  return identity?.type === "UserAssigned" ? nameKey(identity.userAssignedIdentity) : "system";
}

/** The identity in words, for a log line or a dead letter's reason (an id is no secret). */
export function describeIdentity(identity: ManagedIdentity | undefined): string {
  return identity?.type === "UserAssigned"
    ? `the user-assigned identity ${identity.userAssignedIdentity}`
    : "the app's system-assigned identity";
}

/**
 * Whether this deployment may use the identity: the system-assigned one always, a user-assigned
 * one only when attached to the app for endpoints (the setting lists them). An identity the app
 * does not have could get no token; one it has for its own work (its runtime identity, which may
 * write the service's own storage) must never be lent to an endpoint, so it is never listed.
 */
export function identityAvailable(
  identity: ManagedIdentity | undefined,
  attached: readonly string[],
): boolean {
  if (identity?.type !== "UserAssigned") return true;
  const key = identityKey(identity);
  return attached.some((id) => nameKey(id) === key);
}
