import { BUILT_IN_ROLES } from "../auth/role-definitions";
import { systemDataSchema } from "../common/system-data";
import { z } from "../common/zod";

const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

// The length as well as the pattern: tools that generate from a schema (fuzzers, testers) see it.
export const roleAssignmentNameSchema = z.string().length(36, "must be a GUID").regex(GUID, "must be a GUID");

/** The names of the roles the service knows, as the API description lists them. */
const ROLE_NAMES = BUILT_IN_ROLES.map((role) => role.roleName);

/** `text` as a pattern that matches it in any ASCII letter case (roleById compares case-insensitively). */
function anyCase(text: string): string {
  return [...text]
    .map((char) => {
      const lower = char.toLowerCase();
      const upper = char.toUpperCase();
      if (lower !== upper) return `[${upper}${lower}]`;
      return /[\\^$.*+?()[\]{}|]/.test(char) ? `\\${char}` : char;
    })
    .join("");
}

/**
 * The role definition ids roleById takes: one of the built-in roles' GUIDs, alone or as
 * `[/subscriptions/{id}]/providers/Microsoft.Authorization/roleDefinitions/{guid}`, in any letter case.
 */
const ROLE_DEFINITION_ID_PATTERN = `^(?:(?:/${anyCase("subscriptions")}/[^/]+)?/${anyCase("providers/Microsoft.Authorization/roleDefinitions")}/)?(?:${BUILT_IN_ROLES.map((role) => anyCase(role.name)).join("|")})$`;

/** PUT body: who gets which role; the scope and name come from the path. */
export const roleAssignmentPutSchema = z
  .strictObject({
    principalId: z
      .string()
      .length(36, "must be the principal's object id (a GUID)")
      .regex(GUID, "must be the principal's object id (a GUID)")
      .describe("The object id of the user or service principal (oid in its tokens)."),
    roleDefinitionId: z
      .string()
      .min(1)
      .max(256)
      .optional()
      .meta({
        pattern: ROLE_DEFINITION_ID_PATTERN,
        description: `The role: \`/providers/Microsoft.Authorization/roleDefinitions/{guid}\` (a subscription-scoped form or the GUID alone is accepted too, in any letter case), one of ${BUILT_IN_ROLES.map((role) => `${role.name} (${role.roleName})`).join(", ")}.`,
      }),
    roleDefinitionName: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .meta({
        enum: ROLE_NAMES,
        description: `The role by its name instead: ${ROLE_NAMES.join(", ")} (read in any letter case).`,
      }),
    principalType: z
      .enum(["User", "ServicePrincipal", "Group"])
      .optional()
      .describe("What the principal is; informational (User when absent)."),
    id: z.string().optional().meta({ readOnly: true, description: "Read-only: may be echoed unchanged." }),
    name: z.string().optional().meta({ readOnly: true, description: "Read-only: may be echoed unchanged." }),
    type: z.string().optional().meta({ readOnly: true, description: "Read-only: may be echoed unchanged." }),
    scope: z.string().optional().meta({ readOnly: true, description: "Read-only: may be echoed unchanged." }),
    systemData: systemDataSchema.optional(),
  })
  .meta({
    description:
      "A role assignment: `principalId` and one of `roleDefinitionId` or `roleDefinitionName` (both may be given when they name the same role).",
    // What the service requires beside the properties (role-assignment-service.ts, roleOf).
    anyOf: [{ required: ["roleDefinitionId"] }, { required: ["roleDefinitionName"] }],
  });

export const roleAssignmentSchema = z.object({
  id: z.string().describe("`{scope}/providers/Microsoft.Authorization/roleAssignments/{name}`."),
  name: z.string().describe("The assignment's name, a GUID."),
  type: z.literal("Microsoft.Authorization/roleAssignments"),
  scope: z
    .string()
    .describe("Where the role holds, and below: `/`, `/authenticationProfiles[/{name}]` or an ARM path."),
  principalId: z.string(),
  principalType: z.string(),
  roleDefinitionId: z.string(),
  roleDefinitionName: z.string(),
  systemData: systemDataSchema,
});

export type RoleAssignmentPut = z.infer<typeof roleAssignmentPutSchema>;
export type RoleAssignment = z.infer<typeof roleAssignmentSchema>;
