import { isDeepStrictEqual } from "node:util";
import { InvalidRequestContent } from "./errors";
import { z } from "./zod";

/** Who a write is recorded as: an Entra ID principal (by object id), or a Functions key (by name). */
export interface Actor {
  id: string;
  type: "User" | "ServicePrincipal" | "Key";
  /** The principal's tenant, for an Entra ID principal. */
  tenantId?: string;
}

/** ARM's systemData: who created and last changed a resource, and when (ISO 8601 UTC). */
export const systemDataSchema = z
  .strictObject({
    createdAt: z.string().optional(),
    createdBy: z.string().optional(),
    createdByType: z.string().optional(),
    lastModifiedAt: z.string().optional(),
    lastModifiedBy: z.string().optional(),
    lastModifiedByType: z.string().optional(),
  })
  .meta({
    readOnly: true,
    description:
      "Who created and last changed the resource (object id; for a Functions key, its name) and when; set by the service.",
  });

export type SystemData = z.infer<typeof systemDataSchema>;

/** The systemData after a write by `actor` at `now`: creation kept from `existing` when there is one. */
export function stampSystemData(existing: SystemData | undefined, actor: Actor, now: string): SystemData {
  return {
    createdAt: existing?.createdAt ?? now,
    createdBy: existing?.createdBy ?? actor.id,
    createdByType: existing?.createdByType ?? actor.type,
    lastModifiedAt: now,
    lastModifiedBy: actor.id,
    lastModifiedByType: actor.type,
  };
}

/** A document written before systemData was recorded: what its own timestamps tell. */
export function legacySystemData(document: { createdAt?: string; updatedAt?: string }): SystemData {
  return {
    ...(document.createdAt !== undefined && { createdAt: document.createdAt }),
    ...(document.updatedAt !== undefined && { lastModifiedAt: document.updatedAt }),
  };
}

/** systemData is the service's: a body may echo it, with its current value only (400 otherwise). */
export function checkEchoedSystemData(given: SystemData | undefined, current: SystemData | undefined): void {
  if (given === undefined || isDeepStrictEqual(given, current)) return;
  throw new InvalidRequestContent(
    "systemData is read-only: send it only with its current value, or leave it out.",
    "systemData",
  );
}

/** systemData in the API description's examples. */
export const EXAMPLE_SYSTEM_DATA: SystemData = {
  createdAt: "2026-11-20T09:30:00.000Z",
  createdBy: "2f1c9a4e-7b3d-4c2a-9e8f-5d6a7b8c9d0e",
  createdByType: "User",
  lastModifiedAt: "2026-11-21T14:05:00.000Z",
  lastModifiedBy: "2f1c9a4e-7b3d-4c2a-9e8f-5d6a7b8c9d0e",
  lastModifiedByType: "User",
};
