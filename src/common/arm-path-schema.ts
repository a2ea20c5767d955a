import { z } from "./zod";

/** The ASCII characters a resource group name may not hold (all but letters, digits, `-_.()`), and C1 controls. */
const NOT_IN_GROUP_NAMES = "\\x00-\\x27\\x2A-\\x2C\\x2F\\x3A-\\x40\\x5B-\\x5E\\x60\\x7B-\\x9F";

/**
 * The rule as the API description states it: `\p{L}` and `\p{N}` are not understood by many
 * regular expression engines (Python's, RE2), so the document's pattern is exact on ASCII and takes
 * any other character; the description says that those must be letters or digits.
 */
export const RESOURCE_GROUP_NAME_PATTERN = `^[^${NOT_IN_GROUP_NAMES}]{0,89}[^${NOT_IN_GROUP_NAMES}.]$`;

/** ARM resource group names: 1-90 letters, digits, '_', '-', '.', '(' or ')', not ending in '.'. */
export const resourceGroupNameSchema = z
  .string()
  .regex(
    /^[-\p{L}\p{N}_.()]{0,89}[-\p{L}\p{N}_()]$/u,
    "must be 1 to 90 letters, digits, '_', '-', '.', '(' or ')', not ending in '.'",
  )
  .meta({
    pattern: RESOURCE_GROUP_NAME_PATTERN,
    description:
      "1 to 90 letters, digits, '_', '-', '.', '(' or ')', not ending in '.'; letters and digits of any script (Unicode categories L and N).",
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
