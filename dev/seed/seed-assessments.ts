import type { AssessmentService } from "../../src/assessments/assessment-service";
import { SAMPLE_ASSESSMENTS } from "./sample-assessments";

/** How seeded assessments record their writer in systemData. */
const SEEDER = { id: "npm run seed", type: "Key" } as const;

export interface SeedSummary {
  created: number;
  replaced: number;
}

/** PUTs every sample through the service, as the producing system would; running it again only replaces. */
export async function seedAssessments(
  assessments: AssessmentService,
  progress: (line: string) => void = () => undefined,
): Promise<SeedSummary> {
  const summary: SeedSummary = { created: 0, replaced: 0 };
  for (const [index, { path, body }] of SAMPLE_ASSESSMENTS.entries()) {
    const { created } = await assessments.put(path, body, {}, SEEDER);
    summary[created ? "created" : "replaced"]++;
    progress(
      `[${index + 1}/${SAMPLE_ASSESSMENTS.length}] ${created ? "created " : "replaced"} ${path.resourceGroupName}/${path.projectName}/${path.assessmentName}`,
    );
  }
  return summary;
}
