import { z } from "zod";
import { resourceGroupNameSchema, subscriptionIdSchema } from "../endpoints/endpoint-path";
import { nameKey } from "../shared/name-key";

export const ASSESSMENT_TYPE = "Microsoft.Migrate/assessmentProjects/clusterAssessments";

/** Azure Migrate's rule for project and assessment names: 1-260 characters, none of <>&:\?/#. */
const migrateNameSchema = z
  .string()
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  .regex(/^[^<>&:\\?/#\u0000-\u001f]{1,260}$/, "must be 1 to 260 characters, none of < > & : \\ ? / #")
  .refine((name) => name.trim() !== "", "must have a character other than white space");

export const projectPathSchema = z.object({
  subscriptionId: subscriptionIdSchema,
  resourceGroupName: resourceGroupNameSchema,
  projectName: migrateNameSchema,
});

export const assessmentPathSchema = projectPathSchema.extend({ assessmentName: migrateNameSchema });

export type ProjectPath = z.infer<typeof projectPathSchema>;
export type AssessmentPath = z.infer<typeof assessmentPathSchema>;

export const PROJECT_ROUTE =
  "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Migrate/assessmentProjects/{projectName}";

export function projectId(path: ProjectPath): string {
  return `/subscriptions/${path.subscriptionId}/resourceGroups/${path.resourceGroupName}/providers/Microsoft.Migrate/assessmentProjects/${path.projectName}`;
}

export function assessmentId(path: AssessmentPath): string {
  return `${projectId(path)}/clusterAssessments/${path.assessmentName}`;
}

/** Partition key of a project's assessments: its id, keyed as ARM ids compare (case-insensitively). */
export function projectKey(path: ProjectPath): string {
  return nameKey(projectId(path));
}
