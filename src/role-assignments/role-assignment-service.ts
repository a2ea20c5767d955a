import type { Container, SqlParameter } from "@azure/cosmos";
import { type RoleDefinition, roleById, roleByName, roleDefinitionId } from "../auth/role-definitions";
import { scopeKeyOf, scopePath } from "../auth/scope";
import { invalidRequest, ResourceConflict, ResourceNotFound, ServiceUnavailable } from "../common/errors";
import { nameKey } from "../common/name-key";
import { mapPage, type Page, type PageRequest } from "../common/page";
import { checkPreconditions, hasPreconditions, type Preconditions } from "../common/preconditions";
import type { ResourceService } from "../common/resource-service";
import { type Actor, checkEchoedSystemData, stampSystemData } from "../common/system-data";
import type { Versioned } from "../common/versioned";
import {
  ConditionalWriter,
  type DocumentAddress,
  pause,
  replaceUnlessRaced,
} from "../store/conditional-writer";
import { Conflict } from "../store/cosmos-errors";
import type { DocumentStore, Stored } from "../store/document-store";
import { AssignmentClaims, type AssignmentTuple, abandoned, sameTuple } from "./assignment-claims";
import { type AssignmentFilter, NO_FILTER } from "./assignment-filter";
import type { RoleAssignment, RoleAssignmentPut } from "./role-assignment-schema";
import { type RoleAssignmentDocument, roleAssignmentStore } from "./role-assignment-store";

/** Where assignments are listed: a scope, as the path's segments. */
export interface AssignmentScope {
  scope: readonly string[];
}

export interface AssignmentPath extends AssignmentScope {
  roleAssignmentName: string;
}

const TYPE = "Microsoft.Authorization/roleAssignments";

function assignmentId(scope: string, name: string): string {
  return `${scope === "/" ? "" : scope}/providers/${TYPE}/${name}`;
}

function toResource(document: Stored<RoleAssignmentDocument>): Versioned<RoleAssignment> {
  const role = roleById(document.roleDefinition);
  return {
    resource: {
      id: assignmentId(document.scope, document.name),
      name: document.name,
      type: TYPE,
      scope: document.scope,
      principalId: document.principalId,
      principalType: document.principalType,
      roleDefinitionId: role ? roleDefinitionId(role) : document.roleDefinition,
      roleDefinitionName: role?.roleName ?? document.roleDefinition,
      systemData: document.systemData,
    },
    etag: document._etag,
  };
}

function addressOf(path: AssignmentPath): DocumentAddress {
  const id = nameKey(path.roleAssignmentName);
  return { id, partitionKey: id };
}

function unknownRole(target: "roleDefinitionId" | "roleDefinitionName") {
  return invalidRequest([
    {
      code: "RoleDefinitionDoesNotExist",
      message: `The role definition given in ${target} does not exist; the roles are Owner, Contributor, Reader, Twin Events Sender and Assessment Writer.`,
      target,
    },
  ]);
}

/** The role a body names, by id or by name; both (as an answer echoed back) must name the same role. */
function roleOf(body: RoleAssignmentPut): RoleDefinition {
  const { roleDefinitionId: id, roleDefinitionName: name } = body;
  if (id === undefined && name === undefined)
    throw invalidRequest([
      {
        code: "InvalidRequestContent",
        message: "Give roleDefinitionId or roleDefinitionName.",
        target: "roleDefinitionId",
      },
    ]);
  const byId = id === undefined ? undefined : roleById(id);
  const byName = name === undefined ? undefined : roleByName(name);
  if (id !== undefined && !byId) throw unknownRole("roleDefinitionId");
  if (name !== undefined && !byName) throw unknownRole("roleDefinitionName");
  if (byId && byName && byId !== byName)
    throw invalidRequest([
      {
        code: "InvalidRequestContent",
        message: "roleDefinitionId and roleDefinitionName name different roles: give one of them.",
        target: "roleDefinitionName",
      },
    ]);
  return (byId ?? byName) as RoleDefinition;
}

/**
 * Role assignments as resources: who holds which role at which scope. Names are GUIDs, unique across
 * scopes; an assignment is never changed in place (ARM's rule), only created and deleted. One
 * (principal, role, scope) is held by one assignment, through its claim (assignment-claims.ts).
 * `onChange` is told the principal whose grants changed, so this host's authorizer forgets them at once.
 */
export class RoleAssignmentService
  implements ResourceService<AssignmentScope, AssignmentPath, RoleAssignment, RoleAssignmentPut, never>
{
  readonly documents: DocumentStore<RoleAssignmentDocument>;
  private readonly writer: ConditionalWriter<RoleAssignmentDocument>;
  private readonly claims: AssignmentClaims;

  constructor(
    container: Container,
    private readonly onChange: (principalId: string) => void = () => {},
  ) {
    this.documents = roleAssignmentStore(container);
    this.writer = new ConditionalWriter(this.documents, "role assignment");
    this.claims = new AssignmentClaims(container);
  }

  /**
   * One page of the assignments at the scope and every scope above it (as ARM's atScope() lists),
   * or as `filter` says (assignment-filter.ts): one principal's, and those below the scope too.
   * `_only` is never given: a list of assignments shows all or answers 403.
   */
  async list(
    path: AssignmentScope,
    page: PageRequest,
    _only?: readonly string[],
    filter: AssignmentFilter = NO_FILTER,
  ): Promise<Page<RoleAssignment>> {
    const key = scopeKeyOf(path.scope);
    const prefixes = key.map((_, index) => scopePath(key.slice(0, index + 1)));
    const parameters: SqlParameter[] = [{ name: "@prefixes", value: ["/", ...prefixes] }];
    let where = "ARRAY_CONTAINS(@prefixes, c.scopeKeyPath)";
    if (filter.below) {
      // Below: a scope whose key path goes on from this one's at a segment boundary (the root's is "/").
      where = `(${where} OR STARTSWITH(c.scopeKeyPath, @below))`;
      parameters.push({ name: "@below", value: key.length === 0 ? "/" : `${scopePath(key)}/` });
    }
    if (filter.principalId !== undefined) {
      // Both lower-cased GUIDs: put() stores principal ids so, and the filter's are read so.
      where += " AND c.principalId = @principal";
      parameters.push({ name: "@principal", value: filter.principalId });
    }
    const result = await this.documents.queryPage(
      { query: `SELECT * FROM c WHERE ${where} ORDER BY c.id`, parameters },
      page,
    );
    return mapPage(result, (document) => toResource(document).resource);
  }

  async get(path: AssignmentPath): Promise<Versioned<RoleAssignment>> {
    const document = await this.readAt(path);
    if (!document) throw notFound(path);
    return toResource(document);
  }

  async put(
    path: AssignmentPath,
    body: RoleAssignmentPut,
    preconditions: Preconditions,
    actor: Actor,
  ): Promise<{ versioned: Versioned<RoleAssignment>; created: boolean }> {
    const role = roleOf(body);
    const principalId = body.principalId.toLowerCase();
    const scope = scopePath(path.scope);
    checkEchoedFields(body, scope, path.roleAssignmentName);
    const scopeKeyPath = scopePath(scopeKeyOf(path.scope));
    const tuple: AssignmentTuple = { principalId, roleDefinition: role.name, scopeKeyPath };
    const address = addressOf(path);
    const conditional = hasPreconditions(preconditions);
    for (let attempt = 0; attempt < PUT_ATTEMPTS; attempt++) {
      await pause(attempt);
      const existing = await this.documents.read(address.id, address.partitionKey);
      checkPreconditions(preconditions, existing?._etag);
      checkEchoedSystemData(body.systemData, existing?.systemData);
      const now = new Date().toISOString();
      if (existing) {
        if (!sameTuple(existing, tuple))
          throw new ResourceConflict(
            "A role assignment cannot be changed: its scope, principal and role are fixed. Delete it and create another.",
            "RoleAssignmentUpdateNotPermitted",
          );
        // The same assignment again: it already holds its tuple, so a plain replace (200).
        // Always on the version read: one deleted and made again since may hold another tuple.
        const replaced = await replaceUnlessRaced(
          this.documents,
          { ...existing, systemData: stampSystemData(existing.systemData, actor, now) },
          existing._etag,
          conditional,
        );
        if (!replaced) continue;
        this.onChange(principalId);
        return { versioned: toResource(replaced), created: false };
      }
      const claim = await this.claimTuple(tuple, address.id);
      if (claim === undefined) continue;
      let created: Stored<RoleAssignmentDocument>;
      try {
        created = await this.documents.create({
          id: address.id,
          name: path.roleAssignmentName,
          scope,
          scopeKey: [...scopeKeyOf(path.scope)],
          scopeKeyPath,
          principalId,
          principalType: body.principalType ?? "User",
          roleDefinition: role.name,
          ...(actor.tenantId !== undefined && { tenantId: actor.tenantId }),
          systemData: stampSystemData(undefined, actor, now),
        });
      } catch (error) {
        // A PUT of this name got there first: look again (a replace, or another tuple's 409).
        if (error instanceof Conflict) continue;
        throw error;
      }
      this.onChange(principalId);
      if ((await this.claims.replace(tuple, address.id, claim, true)) !== undefined)
        return { versioned: toResource(created), created: true };
      // The claim changed since this PUT took it: another PUT took it over (this one looked stalled)
      // or a DELETE of this name released it. Withdraw, and look again: 409 if the other holds it.
      await this.withdraw(address, tuple);
      this.onChange(principalId);
    }
    throw new ServiceUnavailable(
      "The role assignments of this principal, role and scope are being changed concurrently; retry shortly.",
      1,
    );
  }

  async delete(path: AssignmentPath, preconditions: Preconditions): Promise<boolean> {
    const existing = await this.readAt(path);
    if (!existing) {
      // If-Match (even `*`) on an assignment that is not there fails (412), as every kind's DELETE does.
      checkPreconditions(preconditions, undefined);
      return false;
    }
    const deleted = await this.writer.delete(addressOf(path), preconditions);
    this.onChange(existing.principalId);
    // The tuple is free for another name now (a crash before this leaves a claim a PUT takes over).
    if (deleted) await this.claims.release(existing, existing.id);
    return deleted;
  }

  /** The assignment named in the path, when it is at the path's scope. */
  private async readAt(path: AssignmentPath): Promise<Stored<RoleAssignmentDocument> | undefined> {
    const { id, partitionKey } = addressOf(path);
    const document = await this.documents.read(id, partitionKey);
    return document?.scopeKeyPath === scopePath(scopeKeyOf(path.scope)) ? document : undefined;
  }

  /**
   * Claims the tuple for the assignment `id` (assignment-claims.ts): the claim's etag to confirm
   * once the assignment is stored, or undefined to look again after a pause (the claim changed, or
   * another PUT is writing the assignment it names). RoleAssignmentExists when another holds it.
   */
  private async claimTuple(tuple: AssignmentTuple, id: string): Promise<string | undefined> {
    const made = await this.claims.create(tuple, id);
    if (made !== undefined) return this.adoptUnclaimed(tuple, id, made);
    const claim = await this.claims.read(tuple);
    if (!claim) return undefined;
    // This name's own claim: an earlier try of this PUT, or a PUT of the same name racing it.
    if (claim.assignment === id) return claim._etag;
    const holder = await this.documents.read(claim.assignment, claim.assignment);
    if (holder && sameTuple(holder, tuple)) throw exists(holder.name);
    if (!holder && !abandoned(claim, Date.now())) return undefined;
    return this.claims.replace(tuple, id, claim._etag, false);
  }

  /**
   * Assignments stored before tuples had claims have none: the first claim of a tuple looks for one,
   * and points at it instead of letting a second in.
   */
  private async adoptUnclaimed(
    tuple: AssignmentTuple,
    id: string,
    claim: string,
  ): Promise<string | undefined> {
    const [other] = await this.documents.queryAll<{ id: string; name: string }>({
      query:
        "SELECT c.id, c.name FROM c WHERE c.principalId = @principal AND c.roleDefinition = @role AND c.scopeKeyPath = @scope AND c.id != @id",
      parameters: [
        { name: "@principal", value: tuple.principalId },
        { name: "@role", value: tuple.roleDefinition },
        { name: "@scope", value: tuple.scopeKeyPath },
        { name: "@id", value: id },
      ],
    });
    if (!other) return claim;
    if ((await this.claims.replace(tuple, other.id, claim, true)) === undefined) return undefined;
    throw exists(other.name);
  }

  /** Deletes this PUT's assignment, and any replace of it racing this (same tuple, so still this PUT's). */
  private async withdraw(address: DocumentAddress, tuple: AssignmentTuple): Promise<void> {
    for (let attempt = 0; attempt < PUT_ATTEMPTS; attempt++) {
      const current = await this.documents.read(address.id, address.partitionKey);
      if (!current || !sameTuple(current, tuple)) return;
      if ((await this.documents.delete(address.id, address.partitionKey, current._etag)) !== "changed")
        return;
    }
  }
}

function exists(name: string): ResourceConflict {
  return new ResourceConflict(
    `The role assignment already exists: '${name}' gives the principal this role at this scope.`,
    "RoleAssignmentExists",
  );
}

/** How many times a PUT looks again: after lost races, and while another PUT writes the tuple's assignment. */
const PUT_ATTEMPTS = 40;

/** `id`, `name`, `type` and `scope` are the path's: a body may echo them, unchanged (case aside). */
function checkEchoedFields(body: RoleAssignmentPut, scope: string, name: string): void {
  const expected = { id: assignmentId(scope, name), name, type: TYPE, scope };
  const differing = (["id", "name", "type", "scope"] as const).filter(
    (field) => body[field] !== undefined && nameKey(body[field] as string) !== nameKey(expected[field]),
  );
  if (differing.length > 0)
    throw invalidRequest(
      differing.map((field) => ({
        code: "InvalidRequestContent",
        message: `${field} is read-only: send it only with its current value.`,
        target: field,
      })),
    );
}

function notFound(path: AssignmentPath): ResourceNotFound {
  return new ResourceNotFound(
    `The role assignment '${path.roleAssignmentName}' was not found at scope '${scopePath(path.scope)}'.`,
  );
}
