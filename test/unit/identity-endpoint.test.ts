import { RestError } from "@azure/core-rest-pipeline";
import { ServiceBusError } from "@azure/service-bus";
import { InvalidRequestContent } from "../../src/common/errors";
import { serviceBusIdentityFault, storageIdentityFault } from "../../src/delivery/identity-faults";
import { targetIdentity } from "../../src/endpoints/delivery-endpoint";
import {
  DEFAULT_SERVICEBUS_HOST_SUFFIXES,
  DEFAULT_STORAGE_HOST_SUFFIXES,
} from "../../src/endpoints/endpoint-allow-list";
import { checkPatchKind, refuseKindChange } from "../../src/endpoints/endpoint-kinds";
import { endpointPutSchema } from "../../src/endpoints/endpoint-schema";
import { type IdentityRules, parseIdentitySettings } from "../../src/endpoints/identity-endpoint";
import {
  identityAvailable,
  identityKey,
  isUserAssignedIdentityId,
} from "../../src/endpoints/managed-identity";
import { thrown } from "../support/thrown";

const TEAM_IDENTITY =
  "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/team-a/providers/Microsoft.ManagedIdentity/userAssignedIdentities/orders-sender";

const rules = (allowLoopback = false, attached: string[] = [TEAM_IDENTITY]): IdentityRules => ({
  allowList: {
    serviceBusSuffixes: DEFAULT_SERVICEBUS_HOST_SUFFIXES,
    storageSuffixes: DEFAULT_STORAGE_HOST_SUFFIXES,
    allowLoopback,
  },
  attachedIdentities: attached,
});

const settings = {
  endpointUri: "sb://contoso.servicebus.windows.net/",
  entityPath: "twin-events",
  deadLetterUri: "https://contosodead.blob.core.windows.net/dead-letters",
};

/** The targets of the 400 a call throws. */
function refusedFields(call: () => unknown): string[] {
  const error = thrown(call);
  expect(error).toBeInstanceOf(InvalidRequestContent);
  return (error as InvalidRequestContent).details.map((detail) => detail.target ?? "");
}

describe("identity-based endpoint settings", () => {
  it("reads the namespace (host and port) and the container once", () => {
    const parsed = parseIdentitySettings(settings, rules());
    expect(parsed.namespace).toEqual({ hostname: "contoso.servicebus.windows.net" });
    expect(parsed.deadLetter?.container).toBe("dead-letters");
    const local = parseIdentitySettings(
      {
        endpointUri: "sb://localhost:5671",
        entityPath: "t",
        deadLetterUri: "https://localhost:10443/devstoreaccount1/dead",
      },
      rules(true),
    );
    expect(local.namespace).toEqual({ hostname: "localhost", port: 5671 });
  });

  it.each([
    ["sb://contoso.example.com/", "endpointUri"],
    ["sb://10.0.0.4/", "endpointUri"],
    ["sb://2130706433/", "endpointUri"],
    ["sb://user:pw@contoso.servicebus.windows.net/", "endpointUri"],
    ["sb://contoso.servicebus.windows.net:443/", "endpointUri"],
    ["sb://contoso.servicebus.windows.net/topic", "endpointUri"],
    ["https://contoso.servicebus.windows.net/", "endpointUri"],
    ["sb://localhost:5671/", "endpointUri"],
    ["sb://cöntoso.servicebus.windows.net/", "endpointUri"],
  ])("refuses the namespace %j (outside the allow-list or not plainly written)", (endpointUri, field) => {
    expect(refusedFields(() => parseIdentitySettings({ ...settings, endpointUri }, rules()))).toEqual([
      field,
    ]);
  });

  it.each([
    "https://contosodead.blob.core.windows.net/dead-letters?sv=2022-11-02&sp=cw&sig=abc",
    "https://contosodead.blob.core.windows.net/dead-letters?",
    "https://contosodead.blob.core.windows.net/dead-letters#x",
    "http://contosodead.blob.core.windows.net/dead-letters",
    "https://contosodead.blob.core.windows.net/dead/letters",
    "https://user@contosodead.blob.core.windows.net/dead-letters",
    "https://metadata.azure.internal/dead-letters",
    "https://169.254.169.254/dead-letters",
  ])(
    "refuses the dead-letter container %j (a SAS is a secret shown back; hosts as for SAS URLs)",
    (deadLetterUri) => {
      expect(refusedFields(() => parseIdentitySettings({ ...settings, deadLetterUri }, rules()))).toEqual([
        "deadLetterUri",
      ]);
    },
  );

  it("refuses a topic name Service Bus would not take", () => {
    for (const entityPath of ["", "-topic", "a b", "t?x", "x".repeat(261)]) {
      expect(refusedFields(() => parseIdentitySettings({ ...settings, entityPath }, rules()))).toEqual([
        "entityPath",
      ]);
    }
  });

  it("names every field's problem in one answer", () => {
    expect(
      refusedFields(() =>
        parseIdentitySettings(
          {
            endpointUri: "sb://evil.example/",
            entityPath: "",
            deadLetterUri: "https://evil.example/c",
            identity: {
              type: "UserAssigned",
              userAssignedIdentity: TEAM_IDENTITY.replace("orders", "other"),
            },
          },
          rules(),
        ),
      ),
    ).toEqual(["endpointUri", "entityPath", "deadLetterUri", "identity.userAssignedIdentity"]);
  });
});

describe("managed identities", () => {
  it("admits the system-assigned identity, and a user-assigned one only when attached for endpoints", () => {
    expect(identityAvailable(undefined, [])).toBe(true);
    expect(identityAvailable({ type: "SystemAssigned" }, [])).toBe(true);
    const team = { type: "UserAssigned" as const, userAssignedIdentity: TEAM_IDENTITY };
    expect(identityAvailable(team, [])).toBe(false);
    expect(identityAvailable(team, [TEAM_IDENTITY])).toBe(true);
    // ARM ids compare case-insensitively: another spelling is the same identity, one credential.
    expect(
      identityAvailable({ ...team, userAssignedIdentity: TEAM_IDENTITY.toUpperCase() }, [TEAM_IDENTITY]),
    ).toBe(true);
    expect(identityKey({ ...team, userAssignedIdentity: TEAM_IDENTITY.toUpperCase() })).toBe(
      identityKey(team),
    );
    expect(identityKey(undefined)).toBe(identityKey({ type: "SystemAssigned" }));
    expect(identityKey(team)).not.toBe(identityKey(undefined));
  });

  it("reads user-assigned identity ids by position: keyword-named groups are names, other types are refused", () => {
    expect(
      isUserAssignedIdentityId(
        "/subscriptions/s/resourceGroups/providers/providers/Microsoft.ManagedIdentity/userAssignedIdentities/providers",
      ),
    ).toBe(true);
    for (const id of [
      "/subscriptions/s/resourceGroups/g/providers/Microsoft.ManagedIdentity/userAssignedIdentities",
      "/subscriptions/s/resourceGroups/g/providers/Microsoft.Web/sites/app",
      "/subscriptions/s/resourceGroups/g/providers/Microsoft.ManagedIdentity/userAssignedIdentities/a/child/b",
      "/subscriptions/s/providers/Microsoft.ManagedIdentity/userAssignedIdentities/a",
      "Microsoft.ManagedIdentity/userAssignedIdentities/a",
      "",
    ]) {
      expect([id, isUserAssignedIdentityId(id)]).toEqual([id, false]);
    }
  });
});

describe("the two kinds of endpoint", () => {
  const identityBody = { authenticationType: "IdentityBased", ...settings };

  it("tells the kinds apart by authenticationType, KeyBased when it is left out", () => {
    expect(endpointPutSchema.safeParse(identityBody).success).toBe(true);
    const mixed = endpointPutSchema.safeParse({ ...identityBody, queuePrimaryConnectionString: "x" });
    expect(mixed.success).toBe(false);
    expect(mixed.error?.issues.map((issue) => [issue.path.join("."), issue.message])).toEqual([
      [
        "queuePrimaryConnectionString",
        "belongs to KeyBased endpoints: send authenticationType KeyBased with it, or leave it out",
      ],
    ]);
    const keyed = endpointPutSchema.safeParse({ endpointUri: settings.endpointUri });
    expect(keyed.error?.issues.map((issue) => issue.path.join("."))).toEqual(
      expect.arrayContaining(["queuePrimaryConnectionString", "endpointUri"]),
    );
  });

  it("refuses a change of kind, and a PATCH with the other kind's fields, naming them", () => {
    expect(() => refuseKindChange("KeyBased", undefined)).not.toThrow();
    expect(() => refuseKindChange("IdentityBased", "IdentityBased")).not.toThrow();
    expect(refusedFields(() => refuseKindChange("KeyBased", "IdentityBased"))).toEqual([
      "authenticationType",
    ]);
    expect(
      refusedFields(() =>
        checkPatchKind("IdentityBased", {
          queuePrimaryConnectionString: undefined,
          deadLetterStorageSecret: null,
        }),
      ),
    ).toEqual(["deadLetterStorageSecret"]);
    expect(
      refusedFields(() =>
        checkPatchKind("KeyBased", { entityPath: "t", identity: { type: "SystemAssigned" } }),
      ),
    ).toEqual(["entityPath", "identity"]);
  });
});

describe("refusals said as what they are", () => {
  const identityTarget = { namespace: "contoso.servicebus.windows.net" };

  it("names the identity and the Service Bus role it lacks", () => {
    const refused = new ServiceBusError(
      "Unauthorized access. 'Send' claim(s) are required.",
      "UnauthorizedAccess",
    );
    expect(serviceBusIdentityFault(refused, identityTarget, "orders")).toMatch(
      /^the app's system-assigned identity may not send to topic 'orders' of contoso\.servicebus\.windows\.net: grant it the Azure Service Bus Data Sender role/,
    );
    const user = {
      ...identityTarget,
      identity: { type: "UserAssigned" as const, userAssignedIdentity: TEAM_IDENTITY },
    };
    expect(serviceBusIdentityFault(refused, user, "orders")).toContain(
      `the user-assigned identity ${TEAM_IDENTITY}`,
    );
    // Its retries spent, the client throws every attempt's error together.
    expect(serviceBusIdentityFault(new AggregateError([refused, refused]), identityTarget, "orders")).toMatch(
      /^the app's system-assigned identity may not send to topic 'orders'.*UnauthorizedAccess/,
    );
    // A key's refusal, or another failure, is described as before.
    expect(
      serviceBusIdentityFault(refused, { connectionString: "Endpoint=sb://x/" }, "orders"),
    ).toBeUndefined();
    expect(
      serviceBusIdentityFault(new ServiceBusError("busy", "ServiceBusy"), identityTarget, "orders"),
    ).toBeUndefined();
  });

  it("names the identity that could get no token", () => {
    const failure = Object.assign(new Error("the identity endpoint answered 400: Identity not found"), {
      name: "CredentialUnavailableError",
    });
    expect(serviceBusIdentityFault(failure, identityTarget, "orders")).toMatch(
      /^the app's system-assigned identity could get no token/,
    );
  });

  it("names the identity and the Storage role it lacks, for 401 and 403 only", () => {
    const target = { url: "https://contosodead.blob.core.windows.net/dead-letters" };
    const forbidden = new RestError(
      "This request is not authorized to perform this operation using this permission.",
      {
        statusCode: 403,
      },
    );
    expect(storageIdentityFault(forbidden, target)).toMatch(
      /^the app's system-assigned identity may not use the dead-letter container contosodead\.blob\.core\.windows\.net\/dead-letters: grant it the Storage Blob Data Contributor role/,
    );
    expect(storageIdentityFault(new RestError("gone", { statusCode: 404 }), target)).toBeUndefined();
    expect(
      storageIdentityFault(forbidden, { sasUrl: "https://a.blob.core.windows.net/c?sig=x" }),
    ).toBeUndefined();
    expect(targetIdentity(target)).toEqual({ type: "SystemAssigned" });
  });
});
