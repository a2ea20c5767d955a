import { type ConnectionOptions, TwinServiceClient } from "../../client";
import type {
  ClusterAssessmentInput,
  IdentityBasedQueueEndpointInput,
  KeyBasedQueueEndpointInput,
  QueueEndpoint,
} from "../../client/types";
import { FUNCTION_KEY, MASTER_KEY, type TestHost } from "../support/test-host";

/** Sample data shared by the client and Pulumi tests; the keys are made up. */
export const PRIMARY_KEY = "cHJpbWFyeS1zZWNyZXQta2V5LXZhbHVl+/=";
export const SECONDARY_KEY = "c2Vjb25kYXJ5LXNlY3JldC1rZXk=";
export const SAS_SIGNATURE = "dGhlLXNhcy1zaWduYXR1cmU%3D";

export function connectionString(key: string, rule = "send", topic = "twin-events"): string {
  return `Endpoint=sb://twins-ns.servicebus.windows.net/;SharedAccessKeyName=${rule};SharedAccessKey=${key};EntityPath=${topic}`;
}

export const DEAD_LETTER = `https://deadletters.blob.core.windows.net/dead-letters?sv=2022-11-02&sp=rcwl&sig=${SAS_SIGNATURE}`;

export const ENDPOINT_INPUT: KeyBasedQueueEndpointInput = {
  queuePrimaryConnectionString: connectionString(PRIMARY_KEY),
  queueSecondaryConnectionString: connectionString(SECONDARY_KEY, "send2"),
  deadLetterStorageSecret: DEAD_LETTER,
};

/** A user-assigned identity's ARM id (made up): one attached to the service for endpoints in the tests that say so. */
export const ENDPOINT_IDENTITY_ID =
  "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/Identities-RG/providers/Microsoft.ManagedIdentity/userAssignedIdentities/orders-sender";

/** An identity-based endpoint: nothing secret in it. */
export const IDENTITY_ENDPOINT_INPUT: IdentityBasedQueueEndpointInput = {
  authenticationType: "IdentityBased",
  endpointUri: "sb://twins-ns.servicebus.windows.net/",
  entityPath: "twin-events",
  deadLetterUri: "https://deadletters.blob.core.windows.net/dead-letters",
};

/** The endpoint as a key-based one (what the tests wrote); fails the test when it is identity-based. */
export function keyBased<T extends QueueEndpoint>(
  endpoint: T,
): Extract<T, { authenticationType: "KeyBased" }> {
  if (endpoint.authenticationType === "IdentityBased") {
    throw new Error(`expected a KeyBased endpoint, got an IdentityBased one: ${endpoint.id}`);
  }
  return endpoint as Extract<T, { authenticationType: "KeyBased" }>;
}

/** Every secret in the sample data: none may appear in an answer, an error or a serialized provider. */
export const SECRETS = [PRIMARY_KEY, SECONDARY_KEY, SAS_SIGNATURE, FUNCTION_KEY, MASTER_KEY];

export function instanceId(instanceName: string, resourceGroupName = "Twins-RG"): string {
  return `/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/${resourceGroupName}/providers/Microsoft.DigitalTwins/digitalTwinsInstances/${instanceName}`;
}

export const SAMPLE_PROFILE_CONTENT =
  '{"AllowDBUserOverride":"1","Client_ID":"ExampleClientID","App_ID":"example"}';

export const ASSESSMENT_INPUT: ClusterAssessmentInput = {
  provisioningState: "Succeeded",
  details: {
    confidenceRatingInPercentage: 80,
    createdTimestamp: "2026-11-01T10:00:00Z",
    machineCount: 3,
    pricesTimestamp: "2026-11-20T00:00:00Z",
    status: "Completed",
    totalMonthlyCost: 412.5,
    updatedTimestamp: "2026-11-20T10:00:00Z",
    webAppCount: 4,
    webServerCount: 2,
  },
  settings: {
    cloudLocation: "WestEurope",
    category: "All",
    consolidation: "Full",
    currency: "EUR",
    environmentType: "Production",
    licensingProgram: "Default",
    pricingTier: "Standard",
    savingsOptions: "None",
    sizingCriteria: "AsOnPremises",
    performanceData: { percentile: "Percentile95", timeRange: "Month" },
  },
  scope: { serverGroupId: "web-servers" },
};

/** The systemData of a write made with a Functions key: `default` (a function key) or `_master`. */
export function keySystemData(keyName: "default" | "_master" = "default") {
  return {
    createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    createdBy: keyName,
    createdByType: "Key",
    lastModifiedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    lastModifiedBy: keyName,
    lastModifiedByType: "Key",
  };
}

export const SUBSCRIPTION_ID = "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f";

/** A client of the test host, with the function key unless told otherwise. */
export function clientFor(
  host: TestHost,
  options: Partial<ConnectionOptions> & { key?: string } = {},
): TwinServiceClient {
  return new TwinServiceClient({ endpoint: host.baseUrl, key: FUNCTION_KEY, ...options });
}

/** Runs `action` and returns what it rejected with; fails the test when it resolves. */
export async function rejection(action: () => Promise<unknown>): Promise<unknown> {
  try {
    await action();
  } catch (error) {
    return error;
  }
  throw new Error("expected the action to reject");
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}
