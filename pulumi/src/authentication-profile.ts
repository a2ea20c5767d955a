import * as pulumi from "@pulumi/pulumi";
import { AuthenticationProfileProvider } from "./authentication-profile-provider";
import { resourceInputs, type ServiceConnectionArgs } from "./resource-connection";

export interface AuthenticationProfileArgs extends ServiceConnectionArgs {
  /** Changing it replaces the profile. */
  authenticationProfileName: pulumi.Input<string>;
  /** A JSON object serialized as a string; changed in place. */
  authenticationProfileContent: pulumi.Input<string>;
}

/** The state to qualify `AuthenticationProfile.get`. */
export interface AuthenticationProfileState extends ServiceConnectionArgs {
  authenticationProfileName?: pulumi.Input<string> | undefined;
  authenticationProfileContent?: pulumi.Input<string> | undefined;
}

/** One provider object for every profile: Pulumi serializes it once per program, not per resource. */
const provider = new AuthenticationProfileProvider();

/**
 * A named authentication profile for a data warehouse. Its id, and its import identifier, is the
 * profile's name.
 */
export class AuthenticationProfile extends pulumi.dynamic.Resource {
  declare readonly authenticationProfileName: pulumi.Output<string>;
  declare readonly authenticationProfileContent: pulumi.Output<string>;

  /** An existing profile, read by its id (its name), as `pulumi refresh` reads it. */
  static get(
    name: string,
    id: pulumi.Input<pulumi.ID>,
    state?: AuthenticationProfileState,
    opts?: pulumi.CustomResourceOptions,
  ): AuthenticationProfile {
    return new AuthenticationProfile(name, state ?? {}, { ...opts, id });
  }

  constructor(name: string, args: AuthenticationProfileArgs, opts?: pulumi.CustomResourceOptions);
  constructor(
    name: string,
    argsOrState: AuthenticationProfileArgs | AuthenticationProfileState,
    opts?: pulumi.CustomResourceOptions,
  );
  constructor(
    name: string,
    argsOrState: AuthenticationProfileArgs | AuthenticationProfileState,
    opts: pulumi.CustomResourceOptions = {},
  ) {
    const own = {
      authenticationProfileName: argsOrState.authenticationProfileName,
      authenticationProfileContent: argsOrState.authenticationProfileContent,
    };
    const inputs = resourceInputs(own, argsOrState, opts, ["serviceKey"]);
    super(provider, name, inputs.props, inputs.opts, "twin-resource-service", "AuthenticationProfile");
  }
}
