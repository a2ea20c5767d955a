import type { AccessToken, TokenCredential } from "@azure/core-auth";
import { ServiceBusError } from "@azure/service-bus";
import { describeError } from "../../src/common/describe-error";
import { serviceBusIdentityFault } from "../../src/delivery/identity-faults";
import {
  ManagedIdentityCredentials,
  TokenTimeoutError,
} from "../../src/delivery/managed-identity-credentials";
import type { ServiceBusTarget } from "../../src/endpoints/delivery-endpoint";

// Issue 40's liveness fix, its pure parts: a token request that never ends is abandoned at the
// token timeout and the next one asks again; the causes are said as they are.

const TOKEN: AccessToken = { token: "t", expiresOnTimestamp: Date.now() + 3_600_000 };
const target: ServiceBusTarget = {
  namespace: "contoso.servicebus.windows.net",
  identity: { type: "SystemAssigned" },
};

/** An identity endpoint that hangs on the first `hung` requests, then answers. */
function hangingThen(hung: number): TokenCredential & { calls: number } {
  const credential = {
    calls: 0,
    getToken: () => {
      credential.calls++;
      return credential.calls <= hung ? new Promise<AccessToken>(() => {}) : Promise.resolve(TOKEN);
    },
  };
  return credential;
}

describe("the app's managed identity credentials", () => {
  it("abandon a token request the endpoint never answers, and ask afresh the next time", async () => {
    const inner = hangingThen(1);
    const credentials = new ManagedIdentityCredentials(() => inner, 5);
    const credential = credentials.of(undefined);
    await expect(credential.getToken("https://servicebus.azure.net/.default")).rejects.toBeInstanceOf(
      TokenTimeoutError,
    );
    await expect(credential.getToken("https://servicebus.azure.net/.default")).resolves.toBe(TOKEN);
    expect(inner.calls).toBe(2);
    // One credential per identity: the same object for the same identity.
    expect(credentials.of({ type: "SystemAssigned" })).toBe(credential);
  });

  it("take the deployment's timeout from then on, and a caller's cancellation as an AbortError", async () => {
    const credentials = new ManagedIdentityCredentials(() => hangingThen(Number.POSITIVE_INFINITY), 60_000);
    credentials.setTokenTimeout(5);
    await expect(credentials.of(undefined).getToken("s")).rejects.toThrow(/no token within 5 ms/);
    const cancelled = new AbortController();
    credentials.setTokenTimeout(60_000);
    const waiting = credentials.of(undefined).getToken("s", { abortSignal: cancelled.signal });
    cancelled.abort();
    await expect(waiting).rejects.toMatchObject({ name: "AbortError" });
    await expect(
      credentials.of(undefined).getToken("s", { abortSignal: cancelled.signal }),
    ).rejects.toMatchObject({ name: "AbortError" });
  });
});

describe("what a failed send says", () => {
  it("a token not had in time, as that: not a missing role", () => {
    const fault = serviceBusIdentityFault(new TokenTimeoutError("no token within 5 ms"), target, "orders");
    expect(fault).toMatch(
      /^the app's system-assigned identity could get no token in time: .*IDENTITY_TOKEN_TIMEOUT_MS/,
    );
    expect(fault).not.toContain("role");
  });

  it("a token Service Bus will not take, apart from a missing role", () => {
    const expired = new ServiceBusError("ExpiredToken: The token is expired.", "UnauthorizedAccess");
    const invalid = serviceBusIdentityFault(new AggregateError([expired, expired]), target, "orders");
    expect(invalid).toMatch(
      /^contoso\.servicebus\.windows\.net refused the token of the app's system-assigned identity: .*ExpiredToken/,
    );
    expect(invalid).not.toContain("Data Sender");
    const noRole = new ServiceBusError(
      "Unauthorized access. 'Send' claim(s) are required.",
      "UnauthorizedAccess",
    );
    expect(serviceBusIdentityFault(noRole, target, "orders")).toContain(
      "grant it the Azure Service Bus Data Sender role",
    );
  });

  it("an AggregateError by what it wraps, each cause once", () => {
    const busy = new ServiceBusError("The server is busy.", "ServiceBusy");
    const text = describeError(new AggregateError([busy, busy, new Error("socket hang up")]));
    expect(text).toBe(
      "AggregateError: 3 attempt(s): ServiceBusError: ServiceBusy: The server is busy. | Error: socket hang up",
    );
    expect(describeError(new AggregateError([]))).toBe("AggregateError");
  });
});
