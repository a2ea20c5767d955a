import { ASSESSMENT_PROJECT_PATH, CLUSTER_ASSESSMENT_PATH } from "../common/arm-path";
import { armPathSchema, RESOURCE_GROUP_NAMES } from "../common/arm-path-schema";
import { nameKey } from "../common/name-key";
import { z } from "../common/zod";

export const ASSESSMENT_TYPE = CLUSTER_ASSESSMENT_PATH.resourceType;

/**
 * Azure Migrate's rule for project and assessment names: 1-260 characters, none of <>&:\?/#, not
 * white space only, and not dots only (`.` and `..` name no resource: a path would climb). Each rule
 * a pattern, so that the API description carries it too.
 */
const migrateNameSchema = z
  .string()
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  .regex(/^[^<>&:\\?/#\u0000-\u001f]{1,260}$/, "must be 1 to 260 characters, none of < > & : \\ ? / #")
  .regex(/\S/, "must have a character other than white space")
  .regex(/[^.]/, "must have a character other than '.' (not '.' or '..')");

const NAMES = { ...RESOURCE_GROUP_NAMES, projectName: migrateNameSchema, assessmentName: migrateNameSchema };

export const projectPathSchema = armPathSchema(ASSESSMENT_PROJECT_PATH, NAMES);
export const assessmentPathSchema = armPathSchema(CLUSTER_ASSESSMENT_PATH, NAMES);

export type ProjectPath = z.infer<typeof projectPathSchema>;
export type AssessmentPath = z.infer<typeof assessmentPathSchema>;

export function projectId(path: ProjectPath): string {
  return ASSESSMENT_PROJECT_PATH.id(path);
}

export function assessmentId(path: AssessmentPath): string {
  return CLUSTER_ASSESSMENT_PATH.id(path);
}

/** Partition key of a project's assessments: its id, keyed as ARM ids compare (case-insensitively). */
export function projectKey(path: ProjectPath): string {
  return nameKey(projectId(path));
}
