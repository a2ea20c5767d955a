import { z } from "zod";

/** ARM resource group names: 1-90 letters, digits, '_', '-', '.', '(' or ')', not ending in '.'. */
export const resourceGroupNameSchema = z
  .string()
  .regex(/^[-\p{L}\p{N}_.()]{1,90}$/u, "must be 1 to 90 letters, digits, '_', '-', '.', '(' or ')'")
  .refine((name) => !name.endsWith("."), "must not end with '.'");

export const subscriptionIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9-]{1,64}$/, "must be a subscription id (a GUID: letters, digits and hyphens)");

/** The names every path below a resource group starts with (RESOURCE_GROUP_PATH). */
export const RESOURCE_GROUP_NAMES = {
  subscriptionId: subscriptionIdSchema,
  resourceGroupName: resourceGroupNameSchema,
};

type NameSchemas<P extends string> = { readonly [K in P]: z.ZodType<string> };

/**
 * The schema of an ArmPath's route parameters, in path order, from a rule for each name. `names` may
 * hold rules for other names too (a resource's and its parent's), so one table serves both paths.
 */
export function armPathSchema<P extends string, S extends NameSchemas<P>>(
  path: { readonly params: readonly P[] },
  names: S,
): z.ZodObject<{ -readonly [K in P]: S[K] }> {
  const shape: Record<string, z.ZodType<string>> = {};
  for (const param of path.params) shape[param] = names[param];
  return z.object(shape) as unknown as z.ZodObject<{ -readonly [K in P]: S[K] }>;
}
