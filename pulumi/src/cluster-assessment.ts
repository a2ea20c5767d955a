import * as pulumi from "@pulumi/pulumi";
import type {
  AssessmentScope,
  ClusterAssessmentDetails,
  ClusterAssessmentSettings,
  SystemData,
} from "../../client/types";
import { programConfiguredConnection, serviceClient } from "./service-connection";

export interface GetClusterAssessmentOperationArgs {
  assessmentName: string;
  projectName: string;
  /** Case-insensitive. */
  resourceGroupName: string;
  /** Default: stack config `twin-resource-service:subscriptionId`, else `TWIN_SERVICE_SUBSCRIPTION_ID`. */
  subscriptionId?: string | undefined;
  /** `2023-04-01-preview`, `2023-05-01-preview` or `2023-09-09-preview` (the default). */
  apiVersion?: string | undefined;
  /** Default: stack config `twin-resource-service:endpoint`, else `TWIN_SERVICE_ENDPOINT`. */
  serviceEndpoint?: string | undefined;
  /**
   * Default: the stack config's key or token, else `TWIN_SERVICE_KEY` or `TWIN_SERVICE_TOKEN`, else
   * a token from DefaultAzureCredential for `twin-resource-service:scope` (or `TWIN_SERVICE_SCOPE`).
   */
  serviceKey?: string | undefined;
}

export type GetClusterAssessmentOperationOutputArgs = {
  [K in keyof GetClusterAssessmentOperationArgs]: pulumi.Input<GetClusterAssessmentOperationArgs[K]>;
};

/** The lookup result: the seed's fields, camelCase. */
export interface GetClusterAssessmentOperationResult {
  readonly details: ClusterAssessmentDetails;
  readonly eTag: string;
  readonly id: string;
  readonly name: string;
  readonly provisioningState: string;
  readonly settings: ClusterAssessmentSettings;
  readonly systemData: SystemData;
  readonly type: string;
  readonly scope?: AssessmentScope;
}

/**
 * Reads one cluster assessment. It runs in the program (dynamic providers serve no invokes), so
 * `opts` is accepted for the usual signature and otherwise unused. A plain async function: it works
 * outside a Pulumi program too (no stack config there; the arguments and the environment serve).
 * The stack config is read as is (`Config.get` warns on secrets, and these values are never shown).
 */
export async function getClusterAssessmentOperation(
  args: GetClusterAssessmentOperationArgs,
  _opts?: pulumi.InvokeOptions,
): Promise<GetClusterAssessmentOperationResult> {
  const client = serviceClient(
    {
      ...(args.serviceEndpoint !== undefined && { serviceEndpoint: args.serviceEndpoint }),
      ...(args.serviceKey !== undefined && { serviceKey: args.serviceKey }),
    },
    programConfiguredConnection((key) => pulumi.runtime.getConfig(key)),
    {
      subscriptionId: args.subscriptionId,
      ...(args.apiVersion !== undefined && { apiVersion: { assessments: args.apiVersion } }),
    },
  );
  const assessment = await client.assessments.get({
    resourceGroupName: args.resourceGroupName,
    projectName: args.projectName,
    assessmentName: args.assessmentName,
  });
  return {
    details: assessment.details,
    eTag: assessment.eTag,
    id: assessment.id,
    name: assessment.name,
    provisioningState: assessment.provisioningState,
    settings: assessment.settings,
    systemData: assessment.systemData,
    type: assessment.type,
    ...(assessment.scope !== undefined && { scope: assessment.scope }),
  };
}

/**
 * The same lookup over `Input`s, as an `Output`. The key is unwrapped from its secret: it is used
 * for the call and is no part of the result, which would otherwise be marked secret for nothing.
 */
export function getClusterAssessmentOperationOutput(
  args: GetClusterAssessmentOperationOutputArgs,
  opts?: pulumi.InvokeOptions,
): pulumi.Output<GetClusterAssessmentOperationResult> {
  const { serviceKey, ...rest } = args;
  const key = serviceKey === undefined ? undefined : pulumi.unsecret(pulumi.output(serviceKey));
  return pulumi
    .all([pulumi.output(rest), key])
    .apply(([plain, plainKey]) =>
      getClusterAssessmentOperation(
        { ...plain, ...(plainKey !== undefined && { serviceKey: plainKey }) },
        opts,
      ),
    );
}
