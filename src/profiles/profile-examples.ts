import { EXAMPLE_SYSTEM_DATA } from "../common/system-data";
import type { AuthenticationProfile, ProfilePatch, ProfilePut } from "./profile-schema";

/** The examples of the API description; a test validates each against its schema. */
const content = '{"AllowDBUserOverride":"1","Client_ID":"ExampleClientID","App_ID":"example"}';

export const profileExamples: { put: ProfilePut; resource: AuthenticationProfile; patch: ProfilePatch } = {
  put: { authenticationProfileContent: content },
  resource: {
    id: "example",
    authenticationProfileName: "example",
    authenticationProfileContent: content,
    systemData: EXAMPLE_SYSTEM_DATA,
  },
  patch: { authenticationProfileContent: '{"App_ID":"renamed"}' },
};
