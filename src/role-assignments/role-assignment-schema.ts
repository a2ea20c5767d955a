import { systemDataSchema } from "../common/system-data";
import { z } from "../common/zod";

const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

// The length as well as the pattern: tools that generate from a schema (fuzzers, testers) see it.
export const roleAssignmentNameSchema = z.string().length(36, "must be a GUID").regex(GUID, "must be a GUID");

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
      .describe(
        "The role: `/providers/Microsoft.Authorization/roleDefinitions/{guid}` (a subscription-scoped form or the GUID alone is accepted too).",
      ),
    roleDefinitionName: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe(
        "The role by its name instead: Owner, Contributor, Reader, Twin Events Sender, Assessment Writer.",
      ),
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
  .describe("A role assignment: `principalId` and one of `roleDefinitionId` or `roleDefinitionName`.");

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
