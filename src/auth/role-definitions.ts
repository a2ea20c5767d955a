/**
 * The built-in roles, as data: actions with `*` wildcards, Actions minus NotActions, as Azure
 * defines its own. Owner, Contributor and Reader carry Azure's role definition ids, so an ARM user
 * who knows those ids can use them, as does Managed Identity Operator; the two roles of this
 * service have ids of their own.
 */
export interface RoleDefinition {
  /** The role definition's GUID. */
  name: string;
  roleName: string;
  description: string;
  actions: readonly string[];
  notActions: readonly string[];
}

export const BUILT_IN_ROLES: readonly RoleDefinition[] = [
  {
    name: "8e3af657-a8ff-443c-a75c-2fe8c4bcb635",
    roleName: "Owner",
    description: "Everything, including assigning roles.",
    actions: ["*"],
    notActions: [],
  },
  {
    name: "b24988ac-6180-42a0-ab88-20f7382dd24c",
    roleName: "Contributor",
    description: "Everything except assigning roles.",
    actions: ["*"],
    notActions: ["Microsoft.Authorization/*/write", "Microsoft.Authorization/*/delete"],
  },
  {
    name: "acdd72a7-3385-48ef-bd42-f606fba81ae7",
    roleName: "Reader",
    description: "Reads everything; changes nothing.",
    actions: ["*/read"],
    notActions: [],
  },
  {
    // Azure's own id. Its actions there are `userAssignedIdentities/*/read` and `…/*/assign/action`
    // (with reads of other providers this service has no resources of); written out here, since
    // here `/*/` needs a segment between its slashes, where Azure's also matches none.
    name: "f1a07417-d97a-45cb-824c-7a7467783830",
    roleName: "Managed Identity Operator",
    description:
      "Reads and assigns user-assigned identities: what naming one in an identity-based endpoint needs at the identity.",
    actions: [
      "Microsoft.ManagedIdentity/userAssignedIdentities/read",
      "Microsoft.ManagedIdentity/userAssignedIdentities/assign/action",
    ],
    notActions: [],
  },
  {
    name: "5b0c3a1e-9d2f-4c6b-8e7a-1f2d3c4b5a69",
    roleName: "Twin Events Sender",
    description: "Posts twin events to an instance, nothing else (give it to the instance's identity).",
    actions: ["Microsoft.DigitalTwins/digitalTwinsInstances/events/action"],
    notActions: [],
  },
  {
    name: "7c1e2d3f-4a5b-4c6d-9e8f-0a1b2c3d4e5f",
    roleName: "Assessment Writer",
    description: "Writes, reads and deletes cluster assessments (give it to the system that produces them).",
    actions: [
      "Microsoft.Migrate/assessmentProjects/clusterAssessments/read",
      "Microsoft.Migrate/assessmentProjects/clusterAssessments/write",
      "Microsoft.Migrate/assessmentProjects/clusterAssessments/delete",
    ],
    notActions: [],
  },
];

export const OWNER = BUILT_IN_ROLES[0] as RoleDefinition;

/** How role definition ids are written in ARM: at the provider, below any scope. */
const ROLE_DEFINITION_ID =
  /^(?:\/subscriptions\/[^/]+)?\/providers\/Microsoft\.Authorization\/roleDefinitions\/([^/]+)$/i;

export function roleDefinitionId(role: RoleDefinition): string {
  return `/providers/Microsoft.Authorization/roleDefinitions/${role.name}`;
}

/** A role by its id (the GUID, or its ARM id at any subscription), or undefined. */
export function roleById(id: string): RoleDefinition | undefined {
  const guid = (ROLE_DEFINITION_ID.exec(id)?.[1] ?? id).toLowerCase();
  return BUILT_IN_ROLES.find((role) => role.name === guid);
}

/** A role by its name, compared case-insensitively ("reader"), or undefined. */
export function roleByName(name: string): RoleDefinition | undefined {
  const wanted = name.toLowerCase();
  return BUILT_IN_ROLES.find((role) => role.roleName.toLowerCase() === wanted);
}
