import { serverSet } from "../common/server-set";
import { type SystemData, systemDataSchema } from "../common/system-data";
import { z } from "../common/zod";

/**
 * The string settings are extensible enums in the source API: the known values are documented
 * (and listed in the OpenAPI description), and any other non-empty string is accepted too.
 */
export const KNOWN_VALUES = {
  cloudLocation: [
    "Unknown",
    "EastUS",
    "EastUS2",
    "WestUS",
    "WestUS2",
    "CentralUS",
    "NorthEurope",
    "WestEurope",
    "UKSouth",
    "SoutheastAsia",
    "EastAsia",
    "JapanEast",
    "AustraliaEast",
    "CentralIndia",
    "BrazilSouth",
    "CanadaCentral",
  ],
  category: [
    "All",
    "ComputeOptimized",
    "GeneralPurpose",
    "GpuOptimized",
    "HighPerformanceCompute",
    "MemoryOptimized",
    "StorageOptimized",
    "Isolated",
  ],
  consolidation: ["Full", "AsOnSource"],
  currency: [
    "Unknown",
    "USD",
    "DKK",
    "CAD",
    "IDR",
    "JPY",
    "KRW",
    "NZD",
    "NOK",
    "RUB",
    "SAR",
    "ZAR",
    "SEK",
    "TRY",
    "GBP",
    "MXN",
    "MYR",
    "INR",
    "HKD",
    "BRL",
    "TWD",
    "EUR",
    "CHF",
    "ARS",
    "AUD",
    "CNY",
  ],
  environmentType: ["Unknown", "DevTest", "Production"],
  licensingProgram: ["Default", "EA"],
  pricingTier: ["Standard", "Free"],
  savingsOptions: ["None", "RI1Year", "RI3Year", "SavingsPlan1Year", "SavingsPlan3Year"],
  sizingCriteria: ["PerformanceBased", "AsOnPremises"],
  percentile: ["Percentile50", "Percentile90", "Percentile95", "Percentile99"],
  timeRange: ["Day", "Week", "Month", "Custom"],
  status: ["Created", "Updated", "Running", "Completed", "Invalid", "OutOfSync", "OutDated"],
  provisioningState: ["Succeeded", "Failed", "Canceled", "Provisioning", "Updating", "Deleting", "Accepted"],
} as const;

function extensible(known: readonly string[]) {
  return z
    .string()
    .min(1)
    .meta({ description: `Known values: ${known.join(", ")}; other values are accepted (extensible enum).` });
}

const timestamp = z.iso.datetime({ offset: true });
const finite = z.number().finite();
const count = z.number().int().nonnegative();

export const perfDataSettingsSchema = z.strictObject({
  percentile: extensible(KNOWN_VALUES.percentile),
  timeRange: extensible(KNOWN_VALUES.timeRange),
  perfDataEndTime: timestamp.optional(),
  perfDataStartTime: timestamp.optional(),
});

export const assessmentSettingsSchema = z.strictObject({
  cloudLocation: extensible(KNOWN_VALUES.cloudLocation),
  category: extensible(KNOWN_VALUES.category),
  consolidation: extensible(KNOWN_VALUES.consolidation),
  currency: extensible(KNOWN_VALUES.currency),
  environmentType: extensible(KNOWN_VALUES.environmentType),
  licensingProgram: extensible(KNOWN_VALUES.licensingProgram),
  pricingTier: extensible(KNOWN_VALUES.pricingTier),
  savingsOptions: extensible(KNOWN_VALUES.savingsOptions),
  sizingCriteria: extensible(KNOWN_VALUES.sizingCriteria),
  discountPercentage: finite.optional(),
  performanceData: perfDataSettingsSchema.optional(),
  scalingFactor: finite.optional(),
});

export const assessmentDetailsSchema = z.strictObject({
  confidenceRatingInPercentage: finite,
  createdTimestamp: timestamp,
  machineCount: count,
  pricesTimestamp: timestamp,
  status: extensible(KNOWN_VALUES.status),
  totalMonthlyCost: finite,
  updatedTimestamp: timestamp,
  webAppCount: count,
  webServerCount: count,
});

export const assessmentScopeSchema = z.strictObject({ serverGroupId: z.string().min(1).optional() });

/** PUT body for the producing system; the server-made fields may be echoed with their current values. */
export const assessmentPutSchema = z.strictObject({
  settings: assessmentSettingsSchema,
  details: assessmentDetailsSchema,
  provisioningState: extensible(KNOWN_VALUES.provisioningState),
  scope: assessmentScopeSchema.optional(),
  id: serverSet("The assessment's id, its URL path").optional(),
  name: serverSet("The assessment's name, from the path").optional(),
  type: serverSet("The resource type").optional(),
  eTag: serverSet("The assessment's entity tag").optional(),
  systemData: systemDataSchema
    .meta({ readOnly: true, description: "Set by the service; a body may echo its current value." })
    .optional(),
});

/** The lookup result, flat, with the fields and nesting of the source document. */
export const clusterAssessmentSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  eTag: z.string(),
  provisioningState: z.string(),
  details: assessmentDetailsSchema,
  settings: assessmentSettingsSchema,
  scope: assessmentScopeSchema.optional(),
  systemData: systemDataSchema,
});

export type AssessmentPut = z.infer<typeof assessmentPutSchema>;
export type ClusterAssessment = z.infer<typeof clusterAssessmentSchema>;
export type { SystemData };
