import type { Container } from "@azure/cosmos";
import { type RoleDefinition, roleById, roleByName, roleDefinitionId } from "../auth/role-definitions";
import { scopeKeyOf, scopePath } from "../auth/scope";
import { invalidRequest, ResourceConflict, ResourceNotFound } from "../common/errors";
import { nameKey } from "../common/name-key";
import { mapPage, type Page, type PageRequest } from "../common/page";
import type { Preconditions } from "../common/preconditions";
import type { ResourceService } from "../common/resource-service";
import { type Actor, checkEchoedSystemData, stampSystemData } from "../common/system-data";
import type { Versioned } from "../common/versioned";
import { ConditionalWriter, type DocumentAddress } from "../store/conditional-writer";
import type { DocumentStore, Stored } from "../store/document-store";
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
 * scopes; an assignment is never changed in place (ARM's rule), only created and deleted. `onChange`
 * is told the principal whose grants changed, so this host's authorizer forgets them at once.
 */
export class RoleAssignmentService
  implements ResourceService<AssignmentScope, AssignmentPath, RoleAssignment, RoleAssignmentPut, never>
{
  readonly documents: DocumentStore<RoleAssignmentDocument>;
  private readonly writer: ConditionalWriter<RoleAssignmentDocument>;

  constructor(
    container: Container,
    private readonly onChange: (principalId: string) => void = () => {},
  ) {
    this.documents = roleAssignmentStore(container);
    this.writer = new ConditionalWriter(this.documents, "role assignment");
  }

  async list(path: AssignmentScope, page: PageRequest): Promise<Page<RoleAssignment>> {
    // At the scope and every scope above it, as ARM's atScope() lists.
    const key = scopeKeyOf(path.scope);
    const prefixes = key.map((_, index) => scopePath(key.slice(0, index + 1)));
    const result = await this.documents.queryPage(
      {
        query: "SELECT * FROM c WHERE ARRAY_CONTAINS(@prefixes, c.scopeKeyPath) ORDER BY c.id",
        parameters: [{ name: "@prefixes", value: ["/", ...prefixes] }],
      },
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
    await this.refuseDuplicate(path, principalId, role, scopeKeyPath);
    const now = new Date().toISOString();
    const { document, created } = await this.writer.put(
      addressOf(path),
      preconditions,
      (existing, address) => {
        checkEchoedSystemData(body.systemData, existing?.systemData);
        if (existing) {
          const same =
            existing.scopeKeyPath === scopeKeyPath &&
            existing.principalId === principalId &&
            existing.roleDefinition === role.name;
          if (!same)
            throw new ResourceConflict(
              "A role assignment cannot be changed: its scope, principal and role are fixed. Delete it and create another.",
              "RoleAssignmentUpdateNotPermitted",
            );
          return { ...existing, systemData: stampSystemData(existing.systemData, actor, now) };
        }
        return {
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
        };
      },
    );
    this.onChange(principalId);
    return { versioned: toResource(document), created };
  }

  async delete(path: AssignmentPath, preconditions: Preconditions): Promise<boolean> {
    const existing = await this.readAt(path);
    if (!existing) return false;
    const deleted = await this.writer.delete(addressOf(path), preconditions);
    this.onChange(existing.principalId);
    return deleted;
  }

  /** The assignment named in the path, when it is at the path's scope. */
  private async readAt(path: AssignmentPath): Promise<Stored<RoleAssignmentDocument> | undefined> {
    const { id, partitionKey } = addressOf(path);
    const document = await this.documents.read(id, partitionKey);
    return document?.scopeKeyPath === scopePath(scopeKeyOf(path.scope)) ? document : undefined;
  }

  private async refuseDuplicate(
    path: AssignmentPath,
    principalId: string,
    role: RoleDefinition,
    scopeKeyPath: string,
  ): Promise<void> {
    const others = await this.documents.queryAll<{ id: string }>({
      query:
        "SELECT c.id FROM c WHERE c.principalId = @principal AND c.roleDefinition = @role AND c.scopeKeyPath = @scope AND c.id != @id",
      parameters: [
        { name: "@principal", value: principalId },
        { name: "@role", value: role.name },
        { name: "@scope", value: scopeKeyPath },
        { name: "@id", value: addressOf(path).id },
      ],
    });
    if (others.length > 0)
      throw new ResourceConflict(
        `The role assignment already exists: '${others[0]?.id}' gives the principal this role at this scope.`,
        "RoleAssignmentExists",
      );
  }
}

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
