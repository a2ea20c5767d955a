import type { AssessmentPut, ClusterAssessment } from "./assessment-schema";

/** The examples of the API description; a test validates each against its schema. */
const put: AssessmentPut = {
  provisioningState: "Succeeded",
  details: {
    confidenceRatingInPercentage: 92.5,
    createdTimestamp: "2026-10-02T09:15:00Z",
    machineCount: 48,
    pricesTimestamp: "2026-11-20T00:00:00Z",
    status: "Completed",
    totalMonthlyCost: 18432.77,
    updatedTimestamp: "2026-11-20T06:30:00Z",
    webAppCount: 112,
    webServerCount: 36,
  },
  settings: {
    cloudLocation: "WestEurope",
    category: "GeneralPurpose",
    consolidation: "Full",
    currency: "EUR",
    environmentType: "Production",
    licensingProgram: "EA",
    pricingTier: "Standard",
    savingsOptions: "RI3Year",
    sizingCriteria: "PerformanceBased",
    discountPercentage: 12.5,
    performanceData: {
      percentile: "Percentile95",
      timeRange: "Month",
      perfDataStartTime: "2026-10-01T00:00:00Z",
      perfDataEndTime: "2026-10-31T23:59:59Z",
    },
    scalingFactor: 1.3,
  },
  scope: {
    serverGroupId:
      "/subscriptions/6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f/resourceGroups/rg-migrate-prod/providers/Microsoft.Migrate/assessmentProjects/contoso-dc1/groups/web-servers",
  },
};

const resource: ClusterAssessment = {
  id: "/subscriptions/6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f/resourceGroups/rg-migrate-prod/providers/Microsoft.Migrate/assessmentProjects/contoso-dc1/clusterAssessments/web-tier-aks",
  name: "web-tier-aks",
  type: "Microsoft.Migrate/assessmentProjects/clusterAssessments",
  eTag: '"6b1e3c52-58d6-4f63-a0a5-0d0f1f7c9a11"',
  provisioningState: put.provisioningState,
  details: put.details,
  settings: put.settings,
  ...(put.scope && { scope: put.scope }),
  systemData: {
    createdAt: "2026-11-20T06:31:02.114Z",
    createdBy: "master key",
    createdByType: "Key",
    lastModifiedAt: "2026-11-20T06:31:02.114Z",
    lastModifiedBy: "master key",
    lastModifiedByType: "Key",
  },
};

export const assessmentExamples = { put, resource };
