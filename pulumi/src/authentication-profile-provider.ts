import type * as pulumi from "@pulumi/pulumi";
import type { AuthenticationProfile } from "../../client/types";
import { adoptProfile } from "./adopt-existing";
import { ConfiguredProvider } from "./configured-provider";
import { diffFields, type FieldRoles } from "./field-diff";
import { unlessNotFound } from "./not-found";
import { connectionOutputs, type ServiceConnectionInputs, serviceClient } from "./service-connection";

export interface ProfileProviderInputs extends ServiceConnectionInputs {
  authenticationProfileName: string;
  authenticationProfileContent: string;
  /** Set from the `import` resource option: adopt this existing profile instead of creating one. */
  importId?: string;
}

export interface ProfileProviderOutputs extends ServiceConnectionInputs {
  authenticationProfileName: string;
  authenticationProfileContent: string;
}

export const PROFILE_FIELD_ROLES: FieldRoles = {
  replaces: ["authenticationProfileName"],
  updates: ["authenticationProfileContent", "serviceEndpoint", "serviceKey"],
};

function outputs(profile: AuthenticationProfile, inputs: ServiceConnectionInputs): ProfileProviderOutputs {
  return {
    authenticationProfileName: profile.authenticationProfileName,
    authenticationProfileContent: profile.authenticationProfileContent,
    ...connectionOutputs(inputs),
  };
}

/** CRUD for AuthenticationProfile. The id is the profile's name. */
export class AuthenticationProfileProvider
  extends ConfiguredProvider
  implements pulumi.dynamic.ResourceProvider<ProfileProviderInputs, ProfileProviderOutputs>
{
  async diff(_id: string, olds: ProfileProviderOutputs, news: ProfileProviderInputs) {
    return diffFields({ ...olds }, { ...news }, PROFILE_FIELD_ROLES);
  }

  async create(inputs: ProfileProviderInputs) {
    const client = serviceClient(inputs, this.configured);
    const body = { authenticationProfileContent: inputs.authenticationProfileContent };
    const profile =
      inputs.importId === undefined
        ? await client.profiles.create(inputs.authenticationProfileName, body)
        : adoptProfile(await client.profiles.get(inputs.importId), inputs);
    return { id: profile.id, outs: outputs(profile, inputs) };
  }

  /** Works from the id alone (refresh, `get`); the props only lend the connection inputs. */
  async read(id: string, props?: ProfileProviderOutputs) {
    const connection = props ?? {};
    const client = serviceClient(connection, this.configured);
    const profile = await unlessNotFound(() => client.profiles.get(id));
    if (profile === undefined) return {};
    return { id: profile.id, props: outputs(profile, connection) };
  }

  /** A full PUT that must find the profile (If-Match: *): one deleted meanwhile is not recreated. */
  async update(id: string, _olds: ProfileProviderOutputs, news: ProfileProviderInputs) {
    const client = serviceClient(news, this.configured);
    const body = { authenticationProfileContent: news.authenticationProfileContent };
    const profile = await client.profiles.put(id, body, { ifMatch: "*" });
    return { outs: outputs(profile, news) };
  }

  async delete(id: string, props: ProfileProviderOutputs) {
    await serviceClient(props, this.configured).profiles.delete(id);
  }
}
