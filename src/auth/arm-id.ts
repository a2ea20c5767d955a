import { nameKey } from "../common/name-key";

/**
 * A typed ARM id: what a role assignment is made at and what a request acts on, as a list of
 * levels, each a fully qualified resource type and a name (`Microsoft.DigitalTwins/
 * digitalTwinsInstances` named `factory`). Authorization compares these, level by level, type and
 * name apart, never path strings or prefixes: a name is only ever a name, so a profile named
 * `providers` or a resource group named `resourceGroups` cannot change what a request acts on.
 */
export interface ArmId {
  readonly levels: readonly ArmLevel[];
}

export interface ArmLevel {
  /** As written (`subscriptions`, `Microsoft.DigitalTwins/digitalTwinsInstances`): a child's type extends it. */
  readonly type: string;
  /** Absent for a collection scope (`/authenticationProfiles`: every profile). */
  readonly name?: string;
  /** Type and name as ARM compares them (case-insensitively, src/common/name-key.ts). */
  readonly typeKey: string;
  readonly nameKey?: string;
}

/** The namespace of this service's own resources, which have no ARM provider (profiles). */
const SERVICE_NAMESPACE = "TwinResources";

const PROFILES_TYPE = `${SERVICE_NAMESPACE}/authenticationProfiles`;

export const ARM_ROOT: ArmId = { levels: [] };

function level(type: string, name?: string): ArmLevel {
  return name === undefined
    ? { type, typeKey: nameKey(type) }
    : { type, name, typeKey: nameKey(type), nameKey: nameKey(name) };
}

/** The id one level below `parent`: a resource of `type` (fully qualified) named `name`. */
function below(parent: ArmId, type: string, name?: string): ArmId {
  return { levels: [...parent.levels, level(type, name)] };
}

/** A resource below a resource: its type is the parent's with `childType` added. */
export function childOf(parent: ArmId, childType: string, name: string): ArmId {
  const last = parent.levels.at(-1);
  if (last?.name === undefined) throw new Error("a child resource needs a named parent resource");
  return below(parent, `${last.type}/${childType}`, name);
}

export const profilesId = (): ArmId => below(ARM_ROOT, PROFILES_TYPE);
export const profileId = (name: string): ArmId => below(ARM_ROOT, PROFILES_TYPE, name);
export const subscriptionId = (id: string): ArmId => below(ARM_ROOT, "subscriptions", id);
export const resourceGroupId = (subscription: string, group: string): ArmId =>
  below(subscriptionId(subscription), "resourceGroups", group);

/** `…/resourceGroups/{group}/providers/{namespace}/{type}/{name}`. */
export function providerResourceId(group: ArmId, namespace: string, type: string, name: string): ArmId {
  return below(group, `${namespace}/${type}`, name);
}

/**
 * Whether an assignment at `scope` covers `target`: the scope is the target or one of its
 * ancestors, level by level (type and name both equal), where a collection level covers every
 * resource of its type. Nothing but the root covers the root.
 */
export function covers(scope: ArmId, target: ArmId): boolean {
  const { levels } = scope;
  if (levels.length > target.levels.length) return false;
  for (let index = 0; index < levels.length; index++) {
    const outer = levels[index] as ArmLevel;
    const inner = target.levels[index] as ArmLevel;
    if (outer.typeKey !== inner.typeKey) return false;
    if (outer.nameKey === undefined) return index === levels.length - 1;
    if (outer.nameKey !== inner.nameKey) return false;
  }
  return true;
}

const same = (segment: string | undefined, word: string) =>
  segment !== undefined && segment.toLowerCase() === word.toLowerCase();

/**
 * The typed id of a scope or resource id written as ARM writes it, read by position: `/`,
 * `/authenticationProfiles[/{name}]`, `/subscriptions/{id}[/resourceGroups/{name}[/providers/{ns}/
 * {type}/{name}[/{type}/{name}…]]]`. A word such as `providers` is a keyword only where ARM puts
 * one; anywhere else it is a name. Undefined when the text is no such id (for instance a resource
 * type named `providers`, or a provider with no resource).
 */
export function parseArmId(text: string): ArmId | undefined {
  const segments = text.split("/").filter((segment) => segment !== "");
  const [first, second] = segments;
  if (first === undefined) return ARM_ROOT;
  if (same(first, "authenticationProfiles")) {
    if (segments.length > 2) return undefined;
    return second === undefined ? profilesId() : profileId(second);
  }
  if (!same(first, "subscriptions") || second === undefined) return undefined;
  let id = subscriptionId(second);
  if (segments.length === 2) return id;
  if (!same(segments[2], "resourceGroups") || segments[3] === undefined) return undefined;
  id = below(id, "resourceGroups", segments[3]);
  if (segments.length === 4) return id;
  const [providers, namespace, type, name, ...rest] = segments.slice(4);
  if (!same(providers, "providers") || namespace === undefined || type === undefined || name === undefined)
    return undefined;
  if (same(type, "providers") || rest.length % 2 !== 0) return undefined;
  id = providerResourceId(id, namespace, type, name);
  for (let index = 0; index < rest.length; index += 2) {
    const childType = rest[index] as string;
    if (same(childType, "providers")) return undefined;
    id = childOf(id, childType, rest[index + 1] as string);
  }
  return id;
}
