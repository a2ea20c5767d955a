import { randomUUID } from "node:crypto";
import type * as pulumi from "@pulumi/pulumi";
import { parseRoleAssignmentId } from "../../client/resource-paths";
import { roleDefinitionGuid } from "../../client/role-definitions";
import type { PrincipalType, RoleAssignment, RoleAssignmentInput } from "../../client/types";
import { ConfiguredProvider } from "./configured-provider";
import { unlessNotFound } from "./not-found";
import { connectionOutputs, type ServiceConnectionInputs, serviceClient } from "./service-connection";

/** What names an assignment: the role, by name or by id. */
interface RoleFields {
  roleDefinitionName?: string;
  roleDefinitionId?: string;
}

export interface RoleAssignmentProviderInputs extends RoleFields, ServiceConnectionInputs {
  scope: string;
  principalId: string;
  principalType?: PrincipalType;
  /** A GUID; absent, `check` makes one, once, and keeps it. */
  name?: string;
  /** Set from the `import` resource option: adopt this existing assignment (its id). */
  importId?: string;
}

export interface RoleAssignmentProviderOutputs extends ServiceConnectionInputs {
  scope: string;
  name: string;
  principalId: string;
  principalType: string;
  roleDefinitionId: string;
  roleDefinitionName: string;
}

/** The fields that may change without a new assignment: only where the service is reached. */
const CONNECTION_FIELDS = ["serviceEndpoint", "serviceKey"] as const;

function outputs(assignment: RoleAssignment, inputs: ServiceConnectionInputs): RoleAssignmentProviderOutputs {
  return {
    scope: assignment.scope,
    name: assignment.name,
    principalId: assignment.principalId,
    principalType: assignment.principalType,
    roleDefinitionId: assignment.roleDefinitionId,
    roleDefinitionName: assignment.roleDefinitionName,
    ...connectionOutputs(inputs),
  };
}

function body(inputs: RoleAssignmentProviderInputs): RoleAssignmentInput {
  // check() has made sure exactly one of the role's two spellings is given.
  return {
    principalId: inputs.principalId,
    ...(inputs.roleDefinitionId !== undefined
      ? { roleDefinitionId: inputs.roleDefinitionId }
      : { roleDefinitionName: inputs.roleDefinitionName }),
    ...(inputs.principalType !== undefined && { principalType: inputs.principalType }),
  } as RoleAssignmentInput;
}

function assignmentRef(id: string): { scope: string; name: string } {
  const ref = parseRoleAssignmentId(id);
  if (!ref) {
    throw new Error(
      "The id is not a role assignment id ({scope}/providers/Microsoft.Authorization/roleAssignments/{name}).",
    );
  }
  return ref;
}

/** A scope as the service compares it: case-insensitively, without a trailing '/'. */
function scopeKey(scope: string | undefined): string {
  return (scope ?? "").replace(/(.)\/$/, "$1").toLowerCase();
}

/** The fields that differ between what is and what the program wants, spelled as the service reads them. */
export function changedFields(
  olds: RoleAssignmentProviderOutputs,
  news: RoleAssignmentProviderInputs,
): string[] {
  const changed: string[] = [];
  if (scopeKey(olds.scope) !== scopeKey(news.scope)) changed.push("scope");
  if (olds.principalId.toLowerCase() !== news.principalId.toLowerCase()) changed.push("principalId");
  if (roleDefinitionGuid(olds) !== roleDefinitionGuid(news)) {
    changed.push(news.roleDefinitionId !== undefined ? "roleDefinitionId" : "roleDefinitionName");
  }
  // Not given: whatever the service recorded (User by default) is fine.
  if (news.principalType !== undefined && news.principalType !== olds.principalType)
    changed.push("principalType");
  if (news.name !== undefined && news.name.toLowerCase() !== olds.name.toLowerCase()) changed.push("name");
  return changed;
}

/** An adopted assignment must be the one the program describes: else fail, as Pulumi's import does. */
function adoptAssignment(existing: RoleAssignment, inputs: RoleAssignmentProviderInputs): RoleAssignment {
  const differs = changedFields(outputs(existing, {}), { ...inputs, name: existing.name });
  if (differs.length > 0) {
    throw new Error(
      `The role assignment to import differs from the program in ${differs.join(", ")}: describe it as it is, or leave out the import option.`,
    );
  }
  return existing;
}

/**
 * CRUD for RoleAssignment. The id is the assignment's id. An assignment is never changed in place
 * (the service refuses): any change of scope, principal, role or name replaces it, deleting first
 * when the new one would be the same principal, role and scope (the service allows one of those).
 */
export class RoleAssignmentProvider
  extends ConfiguredProvider
  implements pulumi.dynamic.ResourceProvider<RoleAssignmentProviderInputs, RoleAssignmentProviderOutputs>
{
  /** Names an unnamed assignment: the name it already has, the import id's, or a new GUID. */
  async check(olds: Partial<RoleAssignmentProviderInputs>, news: RoleAssignmentProviderInputs) {
    const failures: pulumi.dynamic.CheckFailure[] = [];
    if ((news.roleDefinitionId === undefined) === (news.roleDefinitionName === undefined)) {
      failures.push({
        property: "roleDefinitionName",
        reason: "Give roleDefinitionName or roleDefinitionId (one).",
      });
    }
    if (news.name !== undefined) return { inputs: news, failures };
    const imported = news.importId === undefined ? undefined : parseRoleAssignmentId(news.importId)?.name;
    const name = olds.name ?? imported ?? randomUUID();
    return { inputs: { ...news, name }, failures };
  }

  async diff(_id: string, olds: RoleAssignmentProviderOutputs, news: RoleAssignmentProviderInputs) {
    const replaces = changedFields(olds, news);
    const updates = CONNECTION_FIELDS.filter(
      (field) => (olds[field] ?? undefined) !== (news[field] ?? undefined),
    );
    const sameAssignment = replaces.every((field) => field === "name" || field === "principalType");
    return {
      changes: replaces.length > 0 || updates.length > 0,
      replaces,
      deleteBeforeReplace: replaces.length > 0 && sameAssignment,
    };
  }

  /** PUT with If-None-Match: * (an existing assignment of that name is not taken over), or adopt. */
  async create(inputs: RoleAssignmentProviderInputs) {
    const client = serviceClient(inputs, this.configured);
    let assignment: RoleAssignment;
    if (inputs.importId !== undefined) {
      const ref = assignmentRef(inputs.importId);
      assignment = adoptAssignment(await client.roleAssignments.get(ref.scope, ref.name), inputs);
    } else {
      const name = inputs.name ?? randomUUID();
      assignment = await client.roleAssignments.create(inputs.scope, name, body(inputs), {
        ifNoneMatch: "*",
      });
    }
    return { id: assignment.id, outs: outputs(assignment, inputs) };
  }

  /** Works from the id alone (refresh, `get`); the props only lend the connection inputs. */
  async read(id: string, props?: Partial<RoleAssignmentProviderOutputs>) {
    const connection = props ?? {};
    const ref = assignmentRef(id);
    const client = serviceClient(connection, this.configured);
    const assignment = await unlessNotFound(() => client.roleAssignments.get(ref.scope, ref.name));
    if (assignment === undefined) return {};
    return { id: assignment.id, props: outputs(assignment, connection) };
  }

  /** Only the connection changes in place: the assignment is read again through it. */
  async update(id: string, _olds: RoleAssignmentProviderOutputs, news: RoleAssignmentProviderInputs) {
    const ref = assignmentRef(id);
    const assignment = await serviceClient(news, this.configured).roleAssignments.get(ref.scope, ref.name);
    return { outs: outputs(assignment, news) };
  }

  async delete(id: string, props: RoleAssignmentProviderOutputs) {
    const ref = assignmentRef(id);
    await serviceClient(props, this.configured).roleAssignments.delete(ref.scope, ref.name);
  }
}
