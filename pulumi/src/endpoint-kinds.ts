import type { EndpointAuthenticationType, EndpointIdentity } from "../../client/types";

/**
 * The two kinds of QueueEndpoint as the provider holds them: one flat set of inputs (Pulumi's state
 * is a plain record), whose `authenticationType` says which fields apply. Absent it is `KeyBased`,
 * as the service reads it, so state written before the kinds existed reads as what it was.
 */
export interface EndpointSettingsInputs {
  authenticationType?: EndpointAuthenticationType;
  /** KeyBased: secrets. */
  queuePrimaryConnectionString?: string;
  queueSecondaryConnectionString?: string;
  deadLetterStorageSecret?: string;
  /** IdentityBased: nothing secret. */
  endpointUri?: string;
  entityPath?: string;
  deadLetterUri?: string;
  identity?: EndpointIdentity;
}

export const KEY_BASED_FIELDS = [
  "queuePrimaryConnectionString",
  "queueSecondaryConnectionString",
  "deadLetterStorageSecret",
] as const;

export const IDENTITY_BASED_FIELDS = ["endpointUri", "entityPath", "deadLetterUri", "identity"] as const;

/** The fields each kind requires. */
const REQUIRED: Record<EndpointAuthenticationType, readonly (keyof EndpointSettingsInputs)[]> = {
  KeyBased: ["queuePrimaryConnectionString", "queueSecondaryConnectionString"],
  IdentityBased: ["endpointUri", "entityPath"],
};

export function kindOf(inputs: { authenticationType?: string | undefined }): EndpointAuthenticationType {
  return inputs.authenticationType === "IdentityBased" ? "IdentityBased" : "KeyBased";
}

/**
 * One spelling per identity, for comparing: an absent identity is the system-assigned one (the
 * service reads it so), and ARM ids compare ignoring case.
 */
export function identityKey(identity: EndpointIdentity | undefined): string {
  return identity?.type === "UserAssigned" ? `user:${identity.userAssignedIdentity.toLowerCase()}` : "system";
}

export interface InputProblem {
  property: string;
  reason: string;
}

/**
 * What the service would refuse in the shape of the inputs, found before any call: an unknown
 * `authenticationType`, a field the kind requires that is missing, a field of the other kind (a mix
 * is never guessed at). Values are checked by the service, which names the field.
 */
export function shapeProblems(inputs: EndpointSettingsInputs & Record<string, unknown>): InputProblem[] {
  const problems: InputProblem[] = [];
  const given = inputs.authenticationType;
  if (given !== undefined && given !== "KeyBased" && given !== "IdentityBased") {
    problems.push({
      property: "authenticationType",
      reason: `must be KeyBased (the default) or IdentityBased, not ${JSON.stringify(given)}`,
    });
    return problems;
  }
  const kind = kindOf(inputs);
  for (const field of REQUIRED[kind]) {
    if (inputs[field] === undefined || inputs[field] === "") {
      problems.push({ property: field, reason: `${kind} endpoints require ${field}` });
    }
  }
  const foreign = kind === "KeyBased" ? IDENTITY_BASED_FIELDS : KEY_BASED_FIELDS;
  const other = kind === "KeyBased" ? "IdentityBased" : "KeyBased";
  for (const field of foreign) {
    if (inputs[field] !== undefined) {
      problems.push({
        property: field,
        reason: `belongs to ${other} endpoints, and this one is ${kind}${given === undefined ? " (authenticationType absent)" : ""}: set authenticationType ${other}, or leave ${field} out`,
      });
    }
  }
  return problems;
}
