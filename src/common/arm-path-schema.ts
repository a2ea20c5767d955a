import { z } from "./zod";

/**
 * ARM resource group names: 1-90 letters, digits, '_', '-', '.', '(' or ')', not ending in '.';
 * letters and digits of any script (Unicode categories L and N). One pattern, for the server (with
 * the `u` flag) and for the API description, where JSON Schema reads it as ECMA-262 does with that
 * flag (JSON Schema 2020-12 §6.4): so the document admits exactly what the server does (`rg§`,
 * `rg±` and a soft hyphen are neither letters nor digits). Lengths count code points, as JSON
 * Schema's do.
 */
export const RESOURCE_GROUP_NAME_PATTERN = "^[-\\p{L}\\p{N}_.()]{0,89}[-\\p{L}\\p{N}_()]$";

export const resourceGroupNameSchema = z
  .string()
  .regex(
    new RegExp(RESOURCE_GROUP_NAME_PATTERN, "u"),
    "must be 1 to 90 letters, digits, '_', '-', '.', '(' or ')', not ending in '.'",
  )
  .meta({
    pattern: RESOURCE_GROUP_NAME_PATTERN,
    description:
      "1 to 90 letters, digits, '_', '-', '.', '(' or ')', not ending in '.'; letters and digits of any script (Unicode categories L and N). " +
      "The pattern is ECMA-262 with the u flag, as JSON Schema reads patterns.",
  });

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
