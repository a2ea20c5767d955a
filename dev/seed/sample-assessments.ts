import { assessmentExamples } from "../../src/assessments/assessment-examples";
import type { AssessmentPath } from "../../src/assessments/assessment-path";
import type { AssessmentPut } from "../../src/assessments/assessment-schema";

export interface SampleAssessment {
  path: AssessmentPath;
  body: AssessmentPut;
}

const SUBSCRIPTION = "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f";

/**
 * Realistic cluster assessments for local runs and demos: two resource groups, three projects,
 * and every optional field (discountPercentage, performanceData with and without its times,
 * scalingFactor, scope.serverGroupId) present in some and absent in others.
 */
export const SAMPLE_ASSESSMENTS: SampleAssessment[] = [
  {
    // The API description's example, so the README's lookup finds the same assessment.
    path: {
      subscriptionId: SUBSCRIPTION,
      resourceGroupName: "rg-migrate-prod",
      projectName: "contoso-dc1",
      assessmentName: "web-tier-aks",
    },
    body: assessmentExamples.put,
  },
  {
    path: {
      subscriptionId: SUBSCRIPTION,
      resourceGroupName: "rg-migrate-prod",
      projectName: "contoso-dc1",
      assessmentName: "intranet-asis",
    },
    body: {
      provisioningState: "Succeeded",
      details: {
        confidenceRatingInPercentage: 0,
        createdTimestamp: "2026-11-01T14:00:00Z",
        machineCount: 12,
        pricesTimestamp: "2026-11-18T00:00:00Z",
        status: "Completed",
        totalMonthlyCost: 2210.4,
        updatedTimestamp: "2026-11-18T08:12:45Z",
        webAppCount: 19,
        webServerCount: 12,
      },
      settings: {
        cloudLocation: "NorthEurope",
        category: "All",
        consolidation: "AsOnSource",
        currency: "EUR",
        environmentType: "Production",
        licensingProgram: "Default",
        pricingTier: "Standard",
        savingsOptions: "None",
        sizingCriteria: "AsOnPremises",
      },
    },
  },
  {
    path: {
      subscriptionId: SUBSCRIPTION,
      resourceGroupName: "rg-migrate-prod",
      projectName: "contoso-dc2",
      assessmentName: "batch-services",
    },
    body: {
      provisioningState: "Updating",
      details: {
        confidenceRatingInPercentage: 67,
        createdTimestamp: "2026-09-12T10:00:00Z",
        machineCount: 130,
        pricesTimestamp: "2026-11-21T00:00:00Z",
        status: "Running",
        totalMonthlyCost: 51877.05,
        updatedTimestamp: "2026-11-21T22:40:10Z",
        webAppCount: 240,
        webServerCount: 88,
      },
      settings: {
        cloudLocation: "EastUS2",
        category: "ComputeOptimized",
        consolidation: "Full",
        currency: "USD",
        environmentType: "Production",
        licensingProgram: "EA",
        pricingTier: "Standard",
        savingsOptions: "SavingsPlan1Year",
        sizingCriteria: "PerformanceBased",
        performanceData: { percentile: "Percentile99", timeRange: "Week" },
      },
      scope: {},
    },
  },
  {
    path: {
      subscriptionId: SUBSCRIPTION,
      resourceGroupName: "rg-migrate-test",
      projectName: "fabrikam-lab",
      assessmentName: "dev-clusters",
    },
    body: {
      provisioningState: "Succeeded",
      details: {
        confidenceRatingInPercentage: 81.25,
        createdTimestamp: "2026-11-10T07:05:00Z",
        machineCount: 6,
        pricesTimestamp: "2026-11-19T00:00:00Z",
        status: "Completed",
        totalMonthlyCost: 734.9,
        updatedTimestamp: "2026-11-19T07:05:30Z",
        webAppCount: 9,
        webServerCount: 4,
      },
      settings: {
        cloudLocation: "UKSouth",
        category: "GeneralPurpose",
        consolidation: "Full",
        currency: "GBP",
        environmentType: "DevTest",
        licensingProgram: "Default",
        pricingTier: "Free",
        savingsOptions: "None",
        sizingCriteria: "PerformanceBased",
        discountPercentage: 0,
        performanceData: {
          percentile: "Percentile50",
          timeRange: "Day",
          perfDataEndTime: "2026-11-18T23:59:59Z",
        },
        scalingFactor: 1,
      },
      scope: {
        serverGroupId: `/subscriptions/${SUBSCRIPTION}/resourceGroups/rg-migrate-test/providers/Microsoft.Migrate/assessmentProjects/fabrikam-lab/groups/lab-vms`,
      },
    },
  },
  {
    path: {
      subscriptionId: SUBSCRIPTION,
      resourceGroupName: "rg-migrate-test",
      projectName: "fabrikam-lab",
      assessmentName: "legacy-portal",
    },
    body: {
      provisioningState: "Failed",
      details: {
        confidenceRatingInPercentage: 20,
        createdTimestamp: "2026-11-21T16:20:00Z",
        machineCount: 0,
        pricesTimestamp: "2026-11-21T16:20:00Z",
        status: "Invalid",
        totalMonthlyCost: 0,
        updatedTimestamp: "2026-11-21T16:21:03Z",
        webAppCount: 0,
        webServerCount: 0,
      },
      settings: {
        cloudLocation: "Unknown",
        category: "MemoryOptimized",
        consolidation: "AsOnSource",
        currency: "Unknown",
        environmentType: "Unknown",
        licensingProgram: "Default",
        pricingTier: "Standard",
        savingsOptions: "RI1Year",
        sizingCriteria: "AsOnPremises",
        scalingFactor: 2.5,
      },
    },
  },
];
