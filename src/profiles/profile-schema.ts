import { z } from "zod";
import { contentProblem } from "./profile-content";

export const profileNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9-]{1,63}$/, "must be 1 to 63 letters, digits or hyphens");

export const profileContentSchema = z.string().superRefine((content, ctx) => {
  const problem = contentProblem(content);
  if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
});

/** PUT body; `id` and the name may be echoed back, but only with their current values. */
export const profilePutSchema = z.strictObject({
  authenticationProfileContent: profileContentSchema,
  authenticationProfileName: profileNameSchema.optional(),
  id: z.string().optional(),
});

export const profilePatchSchema = profilePutSchema.partial();

export const authenticationProfileSchema = z.object({
  id: z.string(),
  authenticationProfileName: z.string(),
  authenticationProfileContent: z.string(),
});

export type ProfilePut = z.infer<typeof profilePutSchema>;
export type ProfilePatch = z.infer<typeof profilePatchSchema>;
export type AuthenticationProfile = z.infer<typeof authenticationProfileSchema>;
