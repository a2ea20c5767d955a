import { assessmentExamples } from "../../src/assessments/assessment-examples";
import type { AssessmentPath } from "../../src/assessments/assessment-path";
import type { AssessmentPut } from "../../src/assessments/assessment-schema";
import type { AssessmentService } from "../../src/assessments/assessment-service";

export interface SampleAssessment {
  path: AssessmentPath;
  body: AssessmentPut;
}

const SUBSCRIPTION = "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f";
const example = assessmentExamples.put;
// Every optional setting left out; each variation adds back those it has.
const { discountPercentage, performanceData, scalingFactor, ...requiredSettings } = example.settings;

function at(resourceGroupName: string, projectName: string, assessmentName: string): AssessmentPath {
  return { subscriptionId: SUBSCRIPTION, resourceGroupName, projectName, assessmentName };
}

/** The example at another path without its optional fields, then with the given ones changed or added. */
function variation(
  path: AssessmentPath,
  provisioningState: AssessmentPut["provisioningState"],
  details: Partial<AssessmentPut["details"]>,
  settings: Partial<AssessmentPut["settings"]>,
  scope?: AssessmentPut["scope"],
): SampleAssessment {
  const body = {
    provisioningState,
    details: { ...example.details, ...details },
    settings: { ...requiredSettings, ...settings },
  };
  return { path, body: { ...body, ...(scope && { scope }) } };
}

/**
 * Realistic cluster assessments for local runs and demos: two resource groups, three projects,
 * and every optional field (discountPercentage, performanceData with and without its times,
 * scalingFactor, scope.serverGroupId) present in some and absent in others.
 */
export const SAMPLE_ASSESSMENTS: SampleAssessment[] = [
  // The API description's example, so the docs' lookup finds the same assessment.
  { path: at("rg-migrate-prod", "contoso-dc1", "web-tier-aks"), body: example },
  // No optional field at all.
  variation(
    at("rg-migrate-prod", "contoso-dc1", "intranet-asis"),
    "Succeeded",
    { confidenceRatingInPercentage: 0, machineCount: 12, totalMonthlyCost: 2210.4, webAppCount: 19 },
    { cloudLocation: "NorthEurope", category: "All", consolidation: "AsOnSource", savingsOptions: "None" },
  ),
  variation(
    at("rg-migrate-prod", "contoso-dc2", "batch-services"),
    "Updating",
    { confidenceRatingInPercentage: 67, machineCount: 130, status: "Running", totalMonthlyCost: 51877.05 },
    {
      cloudLocation: "EastUS2",
      category: "ComputeOptimized",
      currency: "USD",
      savingsOptions: "SavingsPlan1Year",
      performanceData: { percentile: "Percentile99", timeRange: "Week" },
    },
    {},
  ),
  variation(
    at("rg-migrate-test", "fabrikam-lab", "dev-clusters"),
    "Succeeded",
    { confidenceRatingInPercentage: 81.25, machineCount: 6, totalMonthlyCost: 734.9, webServerCount: 4 },
    {
      cloudLocation: "UKSouth",
      currency: "GBP",
      environmentType: "DevTest",
      pricingTier: "Free",
      discountPercentage: 0,
      performanceData: {
        percentile: "Percentile50",
        timeRange: "Day",
        perfDataEndTime: "2026-11-18T23:59:59Z",
      },
      scalingFactor: 1,
    },
    {
      serverGroupId: `/subscriptions/${SUBSCRIPTION}/resourceGroups/rg-migrate-test/providers/Microsoft.Migrate/assessmentProjects/fabrikam-lab/groups/lab-vms`,
    },
  ),
  variation(
    at("rg-migrate-test", "fabrikam-lab", "legacy-portal"),
    "Failed",
    { machineCount: 0, status: "Invalid", totalMonthlyCost: 0, webAppCount: 0, webServerCount: 0 },
    { cloudLocation: "Unknown", currency: "Unknown", sizingCriteria: "AsOnPremises", scalingFactor: 2.5 },
  ),
];

/** How seeded assessments record their writer in systemData. */
const SEEDER = { id: "npm run seed", type: "Key" } as const;

/** PUTs every sample through the service, as the producing system would; running it again only replaces. */
export async function seedAssessments(
  assessments: AssessmentService,
  progress: (line: string) => void = () => undefined,
): Promise<{ created: number; replaced: number }> {
  const summary = { created: 0, replaced: 0 };
  for (const [index, { path, body }] of SAMPLE_ASSESSMENTS.entries()) {
    const { created } = await assessments.put(path, body, {}, SEEDER);
    summary[created ? "created" : "replaced"]++;
    const name = `${path.resourceGroupName}/${path.projectName}/${path.assessmentName}`;
    progress(`[${index + 1}/${SAMPLE_ASSESSMENTS.length}] ${created ? "created " : "replaced"} ${name}`);
  }
  return summary;
}
