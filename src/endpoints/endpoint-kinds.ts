import { type ErrorDetail, invalidRequest } from "../common/errors";
import type { AuthenticationType, EndpointPatch } from "./endpoint-schema";

/** The fields only one kind of endpoint has (a PATCH carries any of them; the stored endpoint decides). */
const KIND_FIELDS: Record<AuthenticationType, readonly (keyof EndpointPatch)[]> = {
  KeyBased: ["queuePrimaryConnectionString", "queueSecondaryConnectionString", "deadLetterStorageSecret"],
  IdentityBased: ["endpointUri", "entityPath", "deadLetterUri", "identity"],
};

/**
 * As Azure Digital Twins, an endpoint's kind is fixed at its creation: a write that would change
 * it is refused (delete the endpoint and create it again), so a PUT never silently drops one
 * kind's settings for the other's.
 */
export function refuseKindChange(
  stored: AuthenticationType,
  requested: AuthenticationType | undefined,
): void {
  if (requested === undefined || requested === stored) return;
  throw invalidRequest([
    {
      code: "AuthenticationTypeChangeNotAllowed",
      message: `The endpoint is ${stored}; its authenticationType cannot change to ${requested}. Delete the endpoint and create it again.`,
      target: "authenticationType",
    },
  ]);
}

/** A PATCH of a `kind` endpoint: 400 naming each field of the other kind it carries, and a changed kind. */
export function checkPatchKind(kind: AuthenticationType, body: EndpointPatch): void {
  refuseKindChange(kind, body.authenticationType);
  const other: AuthenticationType = kind === "KeyBased" ? "IdentityBased" : "KeyBased";
  const details: ErrorDetail[] = KIND_FIELDS[other]
    .filter((field) => body[field] !== undefined)
    .map((field) => ({
      code: "InvalidValue",
      message: `The field '${field}' belongs to ${other} endpoints; this endpoint is ${kind}.`,
      target: field,
    }));
  if (details.length > 0) throw invalidRequest(details);
}
