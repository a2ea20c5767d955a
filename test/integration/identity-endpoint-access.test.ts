import type { OpenIdIssuer } from "../../dev/stand-ins/openid-issuer";
import { principalObjectId } from "../../dev/stand-ins/openid-issuer";
import { expectArmError } from "../support/arm";
import { ADMIN, adminEntraSettings, asPrincipal, assignRole } from "../support/entra-host";
import { startTestHost, type TestHost } from "../support/test-host";
import { startTestIssuer } from "../support/test-issuer";

// CONTRACT §6 and §8 together: naming a user-assigned identity in an endpoint needs ARM's own
// action for giving a resource an identity, `assign/action`, at that identity. Without it, any
// endpoint owner could send with (and spend the roles of) every team's identity the app holds.
const INSTANCE =
  "/subscriptions/5d1c7a52-0000-4000-8000-00000000d1d1/resourceGroups/Ids/providers/Microsoft.DigitalTwins/digitalTwinsInstances/plant";
const identityOf = (team: string) =>
  `/subscriptions/5d1c7a52-0000-4000-8000-00000000d1d1/resourceGroups/${team}/providers/Microsoft.ManagedIdentity/userAssignedIdentities/sender`;
const TEAM_A = identityOf("team-a");
const TEAM_B = identityOf("team-b");
// A resource group named like ARM's keyword: a name only, never a shorter or longer scope.
const KEYWORD = identityOf("providers");
const ASSIGN = "Microsoft.ManagedIdentity/userAssignedIdentities/assign/action";

let issuer: OpenIdIssuer;
let host: TestHost;
const as = (name: string) => asPrincipal(host, issuer, { name });
const endpoint = (name: string) => `${INSTANCE}/endpoints/${name}`;
const body = (userAssignedIdentity?: string) =>
  JSON.stringify({
    authenticationType: "IdentityBased",
    endpointUri: "sb://contoso.servicebus.windows.net/",
    entityPath: "twin-events",
    ...(userAssignedIdentity && { identity: { type: "UserAssigned", userAssignedIdentity } }),
  });

beforeAll(async () => {
  issuer = await startTestIssuer();
  host = await startTestHost({
    ...adminEntraSettings(issuer),
    ENDPOINT_USER_ASSIGNED_IDENTITIES: [TEAM_A, TEAM_B, KEYWORD].join(","),
  });
  // "team-a" owns the instance's endpoints and may assign its own identity only.
  await assignRole(host, issuer, INSTANCE, "team-a", "Contributor");
  await assignRole(host, issuer, TEAM_A, "team-a", "Managed Identity Operator");
});
afterAll(async () => {
  await host.stop();
  await issuer.close();
});

async function forbidden(response: Response, identity: string) {
  const error = await expectArmError(response, 403, "AuthorizationFailed");
  const oid = principalObjectId("team-a");
  expect(error.message).toBe(
    `The client '${oid}' with object id '${oid}' does not have authorization to perform action '${ASSIGN}' over scope '${identity}' or the scope is invalid.`,
  );
}

it("names its own identity, and the shared system-assigned one", async () => {
  expect((await as("team-a")(endpoint("ours"), { method: "PUT", body: body(TEAM_A) })).status).toBe(201);
  expect((await as("team-a")(endpoint("system"), { method: "PUT", body: body() })).status).toBe(201);
});

it("may not name another team's identity, by PUT or PATCH, in any spelling, attached or not", async () => {
  for (const identity of [TEAM_B, TEAM_B.toUpperCase(), KEYWORD, identityOf("never-attached")]) {
    await forbidden(
      await as("team-a")(endpoint("theirs"), { method: "PUT", body: body(identity) }),
      identity,
    );
    await forbidden(
      await as("team-a")(endpoint("ours"), {
        method: "PATCH",
        body: JSON.stringify({ identity: { type: "UserAssigned", userAssignedIdentity: identity } }),
      }),
      identity,
    );
  }
  const kept = (await (await as(ADMIN)(endpoint("ours"))).json()) as {
    identity: { userAssignedIdentity: string };
  };
  expect(kept.identity.userAssignedIdentity).toBe(TEAM_A);
  expect((await as(ADMIN)(endpoint("theirs"))).status).toBe(404);
});

it("lets an Owner name any attached identity, and still refuses one that is not attached (400, after access)", async () => {
  expect((await as(ADMIN)(endpoint("theirs"), { method: "PUT", body: body(TEAM_B) })).status).toBe(201);
  const refused = await as(ADMIN)(endpoint("nobody"), {
    method: "PUT",
    body: body(identityOf("never-attached")),
  });
  await expectArmError(refused, 400, "InvalidRequestContent");
});
