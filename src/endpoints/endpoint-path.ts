import { z } from "zod";
import { nameKey } from "../shared/name-key";

/** ARM resource group names: 1-90 letters, digits, '_', '-', '.', '(' or ')', not ending in '.'. */
export const resourceGroupNameSchema = z
  .string()
  .regex(/^[-\p{L}\p{N}_.()]{1,90}$/u, "must be 1 to 90 letters, digits, '_', '-', '.', '(' or ')'")
  .refine((name) => !name.endsWith("."), "must not end with '.'");

export const subscriptionIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9-]{1,64}$/, "must be a subscription id (a GUID: letters, digits and hyphens)");

export const instanceNameSchema = z
  .string()
  .regex(
    /^(?!-)[A-Za-z0-9-]{3,63}(?<!-)$/,
    "must be 3 to 63 letters, digits or hyphens, not starting or ending with a hyphen",
  );

export const endpointNameSchema = z
  .string()
  .regex(
    /^(?![0-9]+$)(?!-)[a-zA-Z0-9-]{2,49}[a-zA-Z0-9]$/,
    "must be 3 to 50 letters, digits or hyphens, not all digits, not starting or ending with a hyphen",
  );

export const instancePathSchema = z.object({
  subscriptionId: subscriptionIdSchema,
  resourceGroupName: resourceGroupNameSchema,
  instanceName: instanceNameSchema,
});

export const endpointPathSchema = instancePathSchema.extend({ endpointName: endpointNameSchema });

export type InstancePath = z.infer<typeof instancePathSchema>;
export type EndpointPath = z.infer<typeof endpointPathSchema>;

export const INSTANCE_ROUTE =
  "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.DigitalTwins/digitalTwinsInstances/{instanceName}";

/** The twins instance's resource id, in the casing given. */
export function twinsInstanceId(path: InstancePath): string {
  return `/subscriptions/${path.subscriptionId}/resourceGroups/${path.resourceGroupName}/providers/Microsoft.DigitalTwins/digitalTwinsInstances/${path.instanceName}`;
}

/** Partition key of an instance's endpoints: its id, keyed as ARM ids compare (case-insensitively). */
export function instanceKey(path: InstancePath): string {
  return nameKey(twinsInstanceId(path));
}

const INSTANCE_ID_PATTERN =
  /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.DigitalTwins\/digitalTwinsInstances\/([^/]+)\/?$/i;

/** Reads a twins instance id back into its names; undefined when it is not one. */
export function parseTwinsInstanceId(id: string): InstancePath | undefined {
  const match = INSTANCE_ID_PATTERN.exec(id);
  if (!match) return undefined;
  const parsed = instancePathSchema.safeParse({
    subscriptionId: match[1],
    resourceGroupName: match[2],
    instanceName: match[3],
  });
  return parsed.success ? parsed.data : undefined;
}
