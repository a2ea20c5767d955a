import { systemDataSchema } from "../common/system-data";
import { z } from "../common/zod";
import { contentProblem } from "./profile-content";

export const profileNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9-]{1,63}$/, "must be 1 to 63 letters, digits or hyphens");

export const profileContentSchema = z
  .string()
  .meta({
    contentMediaType: "application/json",
    description:
      "A JSON object, as a string: strict JSON (no repeated member names), holding no credential key " +
      "(AccessKeyID, SecretAccessKey, PWD, Password, AuthProfile and their snake_case forms, at any depth).",
  })
  .superRefine((content, ctx) => {
    const problem = contentProblem(content);
    if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
  });

/** PUT body; `id` and the name may be echoed back, but only with their current values. */
export const profilePutSchema = z.strictObject({
  authenticationProfileContent: profileContentSchema,
  authenticationProfileName: profileNameSchema
    .meta({ readOnly: true, description: "The profile's name, from the path; a body may echo it." })
    .optional(),
  id: z
    .string()
    .meta({
      readOnly: true,
      description: "The profile's id, its URL path; a body may echo its current value.",
    })
    .optional(),
  systemData: systemDataSchema.optional(),
});

export const profilePatchSchema = profilePutSchema.partial();

export const authenticationProfileSchema = z.object({
  id: z.string(),
  authenticationProfileName: z.string(),
  authenticationProfileContent: z.string(),
  systemData: systemDataSchema,
});

export type ProfilePut = z.infer<typeof profilePutSchema>;
export type ProfilePatch = z.infer<typeof profilePatchSchema>;
export type AuthenticationProfile = z.infer<typeof authenticationProfileSchema>;
