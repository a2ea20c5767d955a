import type { AuthenticationProfile, EventRoute, QueueEndpoint } from "../../client/types";
import { type EndpointSettingsInputs, identityKey, kindOf } from "./endpoint-kinds";
import { maskConnectionString, maskDeadLetterSecret } from "./masked-secrets";

/** What the providers' inputs hold of each resource (their own types import this module). */
type ProfileInputs = Pick<
  AuthenticationProfile,
  "authenticationProfileName" | "authenticationProfileContent"
>;
type EndpointInputs = Pick<QueueEndpoint, "twinsInstanceId"> & { name?: string } & EndpointSettingsInputs;
type RouteInputs = Pick<EventRoute, "endpointName" | "filter"> & { twinsInstanceId: string; name?: string };

// The `import` option, as the providers serve it: the existing resource is taken over only when the
// program describes it as it is, as Pulumi's own import does; otherwise nothing changes and the error
// names the differing fields (never their values).

/** The existing profile, if the program's name and content are its own. */
export function adoptProfile<T extends AuthenticationProfile>(existing: T, inputs: ProfileInputs): T {
  if (existing.authenticationProfileName.toLowerCase() !== inputs.authenticationProfileName.toLowerCase()) {
    throw new Error("The import id names another profile than authenticationProfileName.");
  }
  if (existing.authenticationProfileContent !== inputs.authenticationProfileContent) {
    throw new Error(
      "The profile to import differs from the program in authenticationProfileContent: make the program " +
        "match the existing profile, import it, then change it.",
    );
  }
  return existing;
}

/** The fields of a key-based endpoint that differ. Secrets compare in their masked form, the only form the service shows. */
function keyBasedDifferences(existing: QueueEndpoint, inputs: EndpointInputs): (string | false)[] {
  if (existing.authenticationType === "IdentityBased") return [];
  return [
    existing.queuePrimaryConnectionString !==
      maskConnectionString(inputs.queuePrimaryConnectionString ?? "") && "queuePrimaryConnectionString",
    existing.queueSecondaryConnectionString !==
      maskConnectionString(inputs.queueSecondaryConnectionString ?? "") && "queueSecondaryConnectionString",
    existing.deadLetterStorageSecret !==
      (inputs.deadLetterStorageSecret === undefined
        ? undefined
        : maskDeadLetterSecret(inputs.deadLetterStorageSecret)) && "deadLetterStorageSecret",
  ];
}

/** The fields of an identity-based endpoint that differ; an absent identity is the system-assigned one. */
function identityBasedDifferences(existing: QueueEndpoint, inputs: EndpointInputs): (string | false)[] {
  if (existing.authenticationType !== "IdentityBased") return [];
  return [
    existing.endpointUri !== inputs.endpointUri && "endpointUri",
    existing.entityPath !== inputs.entityPath && "entityPath",
    existing.deadLetterUri !== inputs.deadLetterUri && "deadLetterUri",
    identityKey(existing.identity) !== identityKey(inputs.identity) && "identity",
  ];
}

/**
 * The existing endpoint, if the program's inputs are its own: its kind, and the fields of that
 * kind. A key-based endpoint's secrets compare in their masked form: the keys themselves cannot be
 * checked, and the program's are kept.
 */
export function adoptEndpoint<T extends QueueEndpoint>(existing: T, inputs: EndpointInputs): T {
  // An answer without authenticationType is a key-based endpoint (a service from before the kinds).
  const existingKind = existing.authenticationType === "IdentityBased" ? "IdentityBased" : "KeyBased";
  const sameKind = existingKind === kindOf(inputs);
  const differing = [
    existing.twinsInstanceId.toLowerCase() !== inputs.twinsInstanceId.toLowerCase() && "twinsInstanceId",
    inputs.name !== undefined && existing.name.toLowerCase() !== inputs.name.toLowerCase() && "name",
    !sameKind && "authenticationType",
    ...(sameKind
      ? [...keyBasedDifferences(existing, inputs), ...identityBasedDifferences(existing, inputs)]
      : []),
  ].filter((field): field is string => field !== false);
  if (differing.length > 0) {
    throw new Error(
      `The endpoint to import differs from the program in ${differing.join(", ")}: make the program match ` +
        "the existing endpoint, import it, then change it.",
    );
  }
  return existing;
}

/**
 * The existing route (`twinsInstanceId` is the one its id names), if the program's inputs are its
 * own. Names compare ignoring case, as the service matches them; the filter as written.
 */
export function adoptEventRoute<T extends EventRoute>(
  existing: T,
  existingInstanceId: string,
  inputs: RouteInputs,
): T {
  const differing = [
    existingInstanceId.toLowerCase() !== inputs.twinsInstanceId.toLowerCase() && "twinsInstanceId",
    inputs.name !== undefined && existing.name.toLowerCase() !== inputs.name.toLowerCase() && "name",
    existing.endpointName.toLowerCase() !== inputs.endpointName.toLowerCase() && "endpointName",
    existing.filter !== inputs.filter && "filter",
  ].filter((field): field is string => field !== false);
  if (differing.length > 0) {
    throw new Error(
      `The event route to import differs from the program in ${differing.join(", ")}: make the program ` +
        "match the existing route, import it, then change it.",
    );
  }
  return existing;
}
