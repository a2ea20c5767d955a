import type * as pulumi from "@pulumi/pulumi";

/** Which inputs name the resource (a change replaces it) and which are changed in place. */
export interface FieldRoles {
  replaces: readonly string[];
  updates: readonly string[];
  /**
   * The fields that make the resource's id (default: `replaces`). A replacement that keeps them
   * (ignoring case) names the same resource, so it deletes first: an event route replaced for a new
   * endpointName under the same name could not be created beside the old one.
   */
  identity?: readonly string[];
}

type Props = Record<string, unknown>;

function same(a: unknown, b: unknown): boolean {
  return (a ?? undefined) === (b ?? undefined);
}

function sameIgnoringCase(a: unknown, b: unknown): boolean {
  return typeof a === "string" && typeof b === "string" ? a.toLowerCase() === b.toLowerCase() : same(a, b);
}

/**
 * The diff of a resource from its roles. The service matches names case-insensitively, so a change
 * of casing alone names the same resource: creating the replacement first would overwrite it and
 * the delete that follows would remove it. Such a replacement deletes first.
 */
export function diffFields(olds: Props, news: Props, roles: FieldRoles): pulumi.dynamic.DiffResult {
  const replaces = roles.replaces.filter((field) => !same(olds[field], news[field]));
  const updates = roles.updates.filter((field) => !same(olds[field], news[field]));
  const sameIdentity = (roles.identity ?? roles.replaces).every((field) =>
    sameIgnoringCase(olds[field], news[field]),
  );
  return {
    changes: replaces.length > 0 || updates.length > 0,
    replaces,
    stables: roles.replaces.filter((field) => !replaces.includes(field)),
    deleteBeforeReplace: replaces.length > 0 && sameIdentity,
  };
}
