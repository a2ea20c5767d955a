import * as pulumi from "@pulumi/pulumi";
import type { BuiltInRoleName, PrincipalType } from "../../client/types";
import { resourceInputs, type ServiceConnectionArgs } from "./resource-connection";
import { RoleAssignmentProvider } from "./role-assignment-provider";

export interface RoleAssignmentArgs extends ServiceConnectionArgs {
  /**
   * Where the role holds, and below: `/` (everything), `/authenticationProfiles[/{name}]`, or an ARM
   * resource id (`/subscriptions/{id}`, a resource group, a twins instance, an assessment project, …).
   */
  scope: pulumi.Input<string>;
  /** The object id of the user, group or service principal (`oid` in its tokens). */
  principalId: pulumi.Input<string>;
  /**
   * The role by name: Owner, Contributor, Reader, Managed Identity Operator, Twin Events Sender,
   * Assessment Writer.
   */
  roleDefinitionName?: pulumi.Input<BuiltInRoleName> | undefined;
  /** Or by id: `/providers/Microsoft.Authorization/roleDefinitions/{guid}`, or the GUID alone. */
  roleDefinitionId?: pulumi.Input<string> | undefined;
  /** Informational; the service records `User` when it is not given. */
  principalType?: pulumi.Input<PrincipalType> | undefined;
  /** The assignment's name, a GUID. Absent: a new GUID, made once and kept across updates. */
  name?: pulumi.Input<string> | undefined;
}

/** The state to qualify `RoleAssignment.get`. */
export interface RoleAssignmentState extends ServiceConnectionArgs {
  scope?: pulumi.Input<string> | undefined;
  principalId?: pulumi.Input<string> | undefined;
  roleDefinitionName?: pulumi.Input<string> | undefined;
  roleDefinitionId?: pulumi.Input<string> | undefined;
  principalType?: pulumi.Input<string> | undefined;
  name?: pulumi.Input<string> | undefined;
}

const provider = new RoleAssignmentProvider();

/**
 * A role held by a principal at a scope and below it. Any change of scope, principal, role or name
 * replaces the assignment (the service never changes one). Its id, and its import identifier, is
 * `{scope}/providers/Microsoft.Authorization/roleAssignments/{name}`. Creating one takes Owner at
 * the scope (or, under AUTH_MODE=keys, the master key).
 */
export class RoleAssignment extends pulumi.dynamic.Resource {
  declare readonly scope: pulumi.Output<string>;
  declare readonly name: pulumi.Output<string>;
  declare readonly principalId: pulumi.Output<string>;
  declare readonly principalType: pulumi.Output<string>;
  /** As the service answers: `/providers/Microsoft.Authorization/roleDefinitions/{guid}`. */
  declare readonly roleDefinitionId: pulumi.Output<string>;
  declare readonly roleDefinitionName: pulumi.Output<string>;

  /** An existing assignment, read by its id, as `pulumi refresh` reads it. */
  static get(
    name: string,
    id: pulumi.Input<pulumi.ID>,
    state?: RoleAssignmentState,
    opts?: pulumi.CustomResourceOptions,
  ): RoleAssignment {
    return new RoleAssignment(name, state ?? {}, { ...opts, id });
  }

  constructor(name: string, args: RoleAssignmentArgs, opts?: pulumi.CustomResourceOptions);
  constructor(
    name: string,
    argsOrState: RoleAssignmentArgs | RoleAssignmentState,
    opts?: pulumi.CustomResourceOptions,
  );
  constructor(
    name: string,
    args: RoleAssignmentArgs | RoleAssignmentState,
    opts: pulumi.CustomResourceOptions = {},
  ) {
    const own = {
      scope: args.scope,
      principalId: args.principalId,
      roleDefinitionName: args.roleDefinitionName,
      roleDefinitionId: args.roleDefinitionId,
      principalType: args.principalType,
      name: args.name,
    };
    const inputs = resourceInputs(own, args, opts, ["serviceKey"]);
    super(provider, name, inputs.props, inputs.opts, "twin-resource-service", "RoleAssignment");
  }
}
