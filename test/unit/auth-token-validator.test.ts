import { createPublicKey, generateKeyPairSync } from "node:crypto";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import {
  LOCAL_APP_ID_URI,
  LOCAL_CLIENT_ID,
  LOCAL_TENANT_ID,
  type OpenIdIssuer,
  principalObjectId,
  startOpenIdIssuer,
} from "../../dev/stand-ins/openid-issuer";
import { AuthorityUnavailable } from "../../src/auth/openid-metadata";
import { TokenValidator } from "../../src/auth/token-validator";
import { AuthenticationFailed, ServiceUnavailable } from "../../src/common/errors";

// The validator against the local issuer over HTTP, as it meets Entra ID: good tokens pass, and
// every forgery is refused with a message that says why, without costing a request to the
// authority once its discovery document and keys are known.

const OTHER_TENANT = "11111111-2222-4333-8444-555555555555";
let issuer: OpenIdIssuer;
let validator: TokenValidator;

function validatorFor(authority: string): TokenValidator {
  return new TokenValidator({
    authority,
    audiences: [LOCAL_CLIENT_ID],
    allowedTenants: [LOCAL_TENANT_ID],
  });
}

async function refusal(authorization: string | null, on = validator): Promise<AuthenticationFailed> {
  const error = await on.principalOf(authorization).then(
    () => new Error("the token was accepted"),
    (caught: unknown) => caught,
  );
  if (!(error instanceof AuthenticationFailed)) throw error;
  return error;
}

/** An RSA key the authority never published. */
const attacker = generateKeyPairSync("rsa", { modulusLength: 2048 });

/** A tiny server that counts what it is asked: where a forged header points. */
async function countingServer(): Promise<{ url: string; count: () => number; close: () => Promise<void> }> {
  let count = 0;
  const server = http.createServer((_request, response) => {
    count++;
    response.writeHead(200, { "content-type": "application/json" });
    response.end(
      JSON.stringify({ keys: [{ ...attacker.publicKey.export({ format: "jwk" }), kid: "evil" }] }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    count: () => count,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

beforeAll(async () => {
  issuer = await startOpenIdIssuer();
  validator = validatorFor(issuer.authority);
  // Warm-up: discovery and the key set are read once here.
  await validator.principalOf(`Bearer ${await issuer.mint()}`);
});
afterAll(() => issuer.close());
beforeEach(() => issuer.resetRequestCounts());
afterEach(() => jest.restoreAllMocks());

describe("good tokens", () => {
  it.each([
    ["v2 user", { version: "2.0" as const }, "User"],
    ["v1 user", { version: "1.0" as const }, "User"],
    ["v2 app", { version: "2.0" as const, app: true }, "ServicePrincipal"],
    ["v1 app", { version: "1.0" as const, app: true }, "ServicePrincipal"],
    ["v2 for the App ID URI", { audience: LOCAL_APP_ID_URI }, "User"],
    ["v1 for the client id", { version: "1.0" as const, audience: LOCAL_CLIENT_ID }, "User"],
  ])("accepts a %s token", async (_what, options, type) => {
    const token = await issuer.mint({ name: "alice", ...options });
    expect(await validator.principalOf(`Bearer ${token}`)).toEqual({
      kind: "entra",
      objectId: principalObjectId("alice"),
      tenantId: LOCAL_TENANT_ID,
      type,
    });
    expect(issuer.requestCount()).toBe(0);
  });

  it("accepts the scheme in any case and surrounding spaces", async () => {
    const token = await issuer.mint();
    for (const header of [`bearer ${token}`, `BEARER ${token}`, `Bearer   ${token}  `]) {
      await expect(validator.principalOf(header)).resolves.toMatchObject({ kind: "entra" });
    }
  });

  it("accepts a token within the 60 s clock tolerance either side", async () => {
    const now = Math.floor(Date.now() / 1000);
    await expect(
      validator.principalOf(`Bearer ${await issuer.mint({ now: now - 3630, lifetimeSeconds: 3600 })}`),
    ).resolves.toMatchObject({ kind: "entra" });
    await expect(
      validator.principalOf(`Bearer ${await issuer.mint({ now: now + 30 })}`),
    ).resolves.toMatchObject({
      kind: "entra",
    });
  });
});

describe("forgeries, refused without a request to the authority", () => {
  afterEach(() => expect(issuer.requests()).toEqual({}));

  it("alg none", async () => {
    const unsigned = await issuer.mint({ unsigned: true });
    expect((await refusal(`Bearer ${unsigned}`)).message).toMatch(/compact form/);
    // With a signature made up, so it reaches the algorithm check.
    const error = await refusal(`Bearer ${unsigned}${Buffer.from("x".repeat(256)).toString("base64url")}`);
    expect(error.code).toBe("InvalidAuthenticationToken");
    expect(error.message).toMatch(/signing algorithm/);
    expect(error.challenge).toMatch(
      /^Bearer authorization_uri="[^"]+", error="invalid_token", error_description="/,
    );
  });

  it("HS256 signed with the authority's public key as a secret", async () => {
    const jwks = (await (await fetch(issuer.jwksUri())).json()) as { keys: Record<string, unknown>[] };
    issuer.resetRequestCounts();
    const publicKey = createPublicKey({ key: jwks.keys[0] as never, format: "jwk" });
    for (const secret of [
      publicKey.export({ type: "spki", format: "pem" }) as string,
      JSON.stringify(jwks.keys[0]),
    ]) {
      const token = await issuer.mint({
        header: { alg: "HS256" },
        signingKey: new TextEncoder().encode(secret),
      });
      expect((await refusal(`Bearer ${token}`)).message).toMatch(/signing algorithm is not accepted/);
    }
  });

  it("a key the authority does not publish, under the authority's kid", async () => {
    const token = await issuer.mint({ signingKey: attacker.privateKey });
    expect((await refusal(`Bearer ${token}`)).message).toMatch(/signature is not valid/);
  });

  it("a payload changed after signing", async () => {
    const [header, payload, signature] = (await issuer.mint({ name: "alice" })).split(".");
    const claims = JSON.parse(Buffer.from(payload as string, "base64url").toString("utf8"));
    claims.oid = principalObjectId("admin");
    const forged = Buffer.from(JSON.stringify(claims)).toString("base64url");
    expect((await refusal(`Bearer ${header}.${forged}.${signature}`)).message).toMatch(
      /signature is not valid/,
    );
  });

  it("a foreign issuer", async () => {
    const token = await issuer.mint({ claims: { iss: `https://evil.example/${LOCAL_TENANT_ID}/v2.0` } });
    expect((await refusal(`Bearer ${token}`)).message).toMatch(/issuer/);
    const v1Microsoft = await issuer.mint({ claims: { iss: `https://sts.windows.net/${LOCAL_TENANT_ID}/` } });
    expect((await refusal(`Bearer ${v1Microsoft}`)).message).toMatch(/issuer/);
  });

  it("another tenant, even with its own issuer", async () => {
    const token = await issuer.mint({ tenantId: OTHER_TENANT });
    expect((await refusal(`Bearer ${token}`)).message).toMatch(/tenant is not allowed/);
    // The issuer of the allowed tenant with another tid: the issuer no longer matches.
    const mixed = await issuer.mint({ tenantId: OTHER_TENANT, claims: { iss: issuer.issuer() } });
    expect((await refusal(`Bearer ${mixed}`)).code).toBe("InvalidAuthenticationToken");
  });

  it("another audience", async () => {
    for (const audience of ["https://management.azure.com", `api://${LOCAL_CLIENT_ID}/x`, OTHER_TENANT]) {
      expect((await refusal(`Bearer ${await issuer.mint({ audience })}`)).message).toMatch(
        /another audience/,
      );
    }
    const none = await issuer.mint({ claims: { aud: undefined } });
    expect((await refusal(`Bearer ${none}`)).message).toMatch(/another audience/);
  });

  it("expired, and the message says so", async () => {
    const token = await issuer.mint({ now: Math.floor(Date.now() / 1000) - 7200, lifetimeSeconds: 3600 });
    const error = await refusal(`Bearer ${token}`);
    expect(error.message).toMatch(/expired/);
    expect(error.challenge).toMatch(/error_description="The token expired at /);
    expect((await refusal(`Bearer ${await issuer.mint({ claims: { exp: undefined } })}`)).message).toMatch(
      /exp/,
    );
    expect((await refusal(`Bearer ${await issuer.mint({ claims: { exp: "never" } })}`)).message).toMatch(
      /exp/,
    );
  });

  it("not yet valid", async () => {
    const token = await issuer.mint({ now: Math.floor(Date.now() / 1000) + 600 });
    expect((await refusal(`Bearer ${token}`)).message).toMatch(/not valid yet/);
  });

  it("no oid or tid, or ones that are not GUIDs", async () => {
    for (const claims of [{ oid: undefined }, { tid: undefined }, { oid: "admin" }, { tid: "common" }]) {
      expect((await refusal(`Bearer ${await issuer.mint({ claims })}`)).message).toMatch(/tid|oid/);
    }
  });

  it("no kid", async () => {
    expect((await refusal(`Bearer ${await issuer.mint({ header: { kid: undefined } })}`)).message).toMatch(
      /kid/,
    );
  });

  it.each(["jku", "x5u"])(
    "a %s header pointing at another server: that server is never asked",
    async (name) => {
      const elsewhere = await countingServer();
      try {
        for (const kid of ["evil", issuer.kid]) {
          const token = await issuer.mint({
            header: { kid, [name]: `${elsewhere.url}/keys` },
            signingKey: attacker.privateKey,
          });
          expect((await refusal(`Bearer ${token}`)).code).toBe("InvalidAuthenticationToken");
        }
        expect(elsewhere.count()).toBe(0);
      } finally {
        await elsewhere.close();
      }
    },
  );

  it("a jwk header carrying the forger's own key", async () => {
    const jwk = attacker.publicKey.export({ format: "jwk" });
    for (const kid of ["evil", issuer.kid]) {
      const token = await issuer.mint({ header: { kid, jwk }, signingKey: attacker.privateKey });
      expect((await refusal(`Bearer ${token}`)).message).toMatch(
        /signature is not valid|key the authority does not publish/,
      );
    }
  });

  it("too long, or not a compact JWT", async () => {
    const long = await issuer.mint({ claims: { padding: "x".repeat(17 * 1024) } });
    expect((await refusal(`Bearer ${long}`)).message).toMatch(/compact form/);
    for (const garbage of ["abc", "a.b", "a.b.c.d", "....", "a.b.c", "e30.e30.e30", "%%%.%%%.%%%"]) {
      expect((await refusal(`Bearer ${garbage}`)).code).toBe("InvalidAuthenticationToken");
    }
  });

  it("Authorization headers that are not one bearer token", async () => {
    const token = await issuer.mint();
    expect((await refusal(null)).code).toBe("AuthenticationFailed");
    expect((await refusal("")).code).toBe("AuthenticationFailed");
    expect((await refusal("   ")).challenge).toMatch(/^Bearer authorization_uri="/);
    for (const header of [
      `Basic ${Buffer.from("user:pass").toString("base64")}`,
      `Bearer ${token} ${token}`,
      `Bearer ${token},${token}`,
      "Bearer",
      "Bearer ",
      `Bearer\t${token}`,
      `Bearer: ${token}`,
      `MAC ${token}`,
      token,
    ]) {
      const error = await refusal(header);
      expect(error.code).toBe("InvalidAuthenticationToken");
      expect(error.message).not.toContain(token);
      expect(error.challenge).not.toContain(token);
    }
  });
});

describe("an unknown kid", () => {
  it("costs at most one refresh of the key set per cool-down, however many tokens bring one", async () => {
    const tokens = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        issuer.mint({ header: { kid: `unknown-${index}` }, signingKey: attacker.privateKey }),
      ),
    );
    // Past the cool-down of the warm-up's read, so a refresh is allowed again.
    const start = Date.now();
    jest.spyOn(Date, "now").mockImplementation(() => start + 31_000);
    const now = Math.floor((start + 31_000) / 1000);
    const late = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        issuer.mint({ now, header: { kid: `late-${index}` }, signingKey: attacker.privateKey }),
      ),
    );
    const errors = await Promise.all([...tokens, ...late].map((token) => refusal(`Bearer ${token}`)));
    for (const token of late) await refusal(`Bearer ${token}`);
    for (const error of errors) expect(error.message).toMatch(/key the authority does not publish/);
    // One refresh (the cool-down had passed), shared by all forty, and none for the second pass.
    expect(issuer.requestCount(issuer.jwksUri())).toBe(1);
    expect(issuer.requestCount(issuer.discoveryUrl())).toBe(0);
  });
});

describe("the key set's cool-down holds whether the last fetch succeeded or failed", () => {
  const COOLDOWN_MS = 5000;
  let own: OpenIdIssuer;
  beforeEach(async () => {
    own = await startOpenIdIssuer();
  });
  afterEach(() => own.close());

  function withCooldown(keySetCooldownMs?: number): TokenValidator {
    return new TokenValidator({
      authority: own.authority,
      audiences: [LOCAL_CLIENT_ID],
      allowedTenants: [LOCAL_TENANT_ID],
      ...(keySetCooldownMs !== undefined && { keySetCooldownMs }),
    });
  }

  /** Tokens signed under kids the authority never published (minted before the clock is frozen). */
  function unknownKids(count: number, prefix: string): Promise<string[]> {
    return Promise.all(
      Array.from({ length: count }, (_, index) =>
        own.mint({ header: { kid: `${prefix}-${index}` }, signingKey: attacker.privateKey }),
      ),
    );
  }

  /** From here on, Date.now (the validator's and jose's clock) moves only when told. */
  function frozenClock(): { advance: (ms: number) => void } {
    const start = Date.now();
    let offset = 0;
    jest.spyOn(Date, "now").mockImplementation(() => start + offset);
    return {
      advance: (ms) => {
        offset += ms;
      },
    };
  }

  function outcome(on: TokenValidator, token: string): Promise<unknown> {
    return on.principalOf(`Bearer ${token}`).catch((caught: unknown) => caught);
  }

  /** Callers arriving a few milliseconds apart, as over the wire, all in flight together. */
  function staggered(on: TokenValidator, tokens: string[]): Promise<unknown[]> {
    return Promise.all(
      tokens.map(
        (token, index) =>
          new Promise<unknown>((resolve) => setTimeout(() => resolve(outcome(on, token)), index * 2)),
      ),
    );
  }

  function expectUnavailable(errors: unknown[], retryAfterSeconds: number): void {
    for (const error of errors) expect(error).toBeInstanceOf(AuthorityUnavailable);
    expect(new Set(errors.map((error) => (error as ServiceUnavailable).retryAfterSeconds))).toEqual(
      new Set([retryAfterSeconds]),
    );
  }

  const keyFetches = () => own.requestCount(own.jwksUri());

  it("200 tokens with unknown kids one after another while the key set answers 500: one fetch per cool-down, each a 503 with Retry-After; known kids keep working", async () => {
    const tokens = withCooldown(COOLDOWN_MS);
    await tokens.principalOf(`Bearer ${await own.mint({ name: "alice" })}`);
    const unknown = await unknownKids(200, "unknown");
    const [later] = await unknownKids(1, "later");
    const known = await own.mint({ name: "bob" });
    await own.setFault("keys-error");
    const clock = frozenClock();
    clock.advance(COOLDOWN_MS + 1000);
    own.resetRequestCounts();

    const errors: unknown[] = [];
    for (const token of unknown) errors.push(await outcome(tokens, token));
    expectUnavailable(errors, 5);
    expect(keyFetches()).toBe(1);
    expect(own.requestCount(own.discoveryUrl())).toBe(0);

    // The key set read before the outage still serves the kids it has.
    await expect(tokens.principalOf(`Bearer ${known}`)).resolves.toMatchObject({
      objectId: principalObjectId("bob"),
    });
    // Still within the cool-down: no fetch, and Retry-After says how much of it is left.
    clock.advance(COOLDOWN_MS - 2000);
    expectUnavailable([await outcome(tokens, later as string)], 2);
    expect(keyFetches()).toBe(1);
    // Past it: one more fetch.
    clock.advance(2000);
    expectUnavailable([await outcome(tokens, later as string)], 5);
    expectUnavailable([await outcome(tokens, later as string)], 5);
    expect(keyFetches()).toBe(2);
  });

  it("20 concurrent tokens with unknown kids while the key set answers 500: one fetch, and one more after the cool-down", async () => {
    const tokens = withCooldown(COOLDOWN_MS);
    await tokens.principalOf(`Bearer ${await own.mint()}`);
    const first = await unknownKids(20, "first");
    const second = await unknownKids(20, "second");
    await own.setFault("keys-error");
    const clock = frozenClock();
    clock.advance(COOLDOWN_MS);
    own.resetRequestCounts();

    expectUnavailable(await Promise.all(first.map((token) => outcome(tokens, token))), 5);
    expectUnavailable(await staggered(tokens, second), 5);
    expect(keyFetches()).toBe(1);

    clock.advance(COOLDOWN_MS);
    expectUnavailable(await staggered(tokens, [...second, ...first]), 5);
    expect(keyFetches()).toBe(2);
  });

  it("no key set read yet and its fetch fails: every token waits out the cool-down (503), then the authority is asked again", async () => {
    const tokens = withCooldown(COOLDOWN_MS);
    const unknown = await unknownKids(199, "unknown");
    const good = await own.mint({ name: "alice" });
    await own.setFault("keys-error");
    const clock = frozenClock();

    const errors: unknown[] = [];
    for (const token of [good, ...unknown]) errors.push(await outcome(tokens, token));
    expectUnavailable(errors, 5);
    expect(keyFetches()).toBe(1);
    expectUnavailable(await staggered(tokens, unknown.slice(0, 20)), 5);
    expect(keyFetches()).toBe(1);

    // Back, and past the cool-down: the key set is read once more; then an unknown kid is the token's fault.
    await own.setFault("none");
    clock.advance(COOLDOWN_MS);
    await expect(tokens.principalOf(`Bearer ${good}`)).resolves.toMatchObject({ kind: "entra" });
    for (const token of unknown.slice(0, 50))
      expect((await refusal(`Bearer ${token}`, tokens)).message).toMatch(
        /key the authority does not publish/,
      );
    expect(keyFetches()).toBe(2);
  });

  it("after a successful fetch: 200 unknown kids one after another, then 20 concurrent, cost no fetch within the cool-down, and one after it", async () => {
    const tokens = withCooldown(COOLDOWN_MS);
    await tokens.principalOf(`Bearer ${await own.mint()}`);
    const unknown = await unknownKids(200, "unknown");
    const clock = frozenClock();
    clock.advance(COOLDOWN_MS);
    own.resetRequestCounts();

    for (const token of unknown)
      expect((await refusal(`Bearer ${token}`, tokens)).message).toMatch(
        /key the authority does not publish/,
      );
    expect(keyFetches()).toBe(1);
    const concurrent = await staggered(tokens, unknown.slice(0, 20));
    for (const error of concurrent) expect(error).toBeInstanceOf(AuthenticationFailed);
    expect(keyFetches()).toBe(1);

    clock.advance(COOLDOWN_MS - 1);
    await refusal(`Bearer ${unknown[0]}`, tokens);
    expect(keyFetches()).toBe(1);
    clock.advance(1);
    for (const error of await staggered(tokens, unknown.slice(0, 20)))
      expect(error).toBeInstanceOf(AuthenticationFailed);
    expect(keyFetches()).toBe(2);
  });

  it("is 30 s unless told otherwise", async () => {
    const tokens = withCooldown();
    await tokens.principalOf(`Bearer ${await own.mint()}`);
    const unknown = await unknownKids(50, "unknown");
    await own.setFault("keys-error");
    const clock = frozenClock();
    clock.advance(31_000);
    own.resetRequestCounts();

    const errors: unknown[] = [];
    for (const token of unknown) errors.push(await outcome(tokens, token));
    expectUnavailable(errors, 30);
    clock.advance(29_999);
    expectUnavailable([await outcome(tokens, unknown[0] as string)], 1);
    expect(keyFetches()).toBe(1);
    clock.advance(1);
    expectUnavailable([await outcome(tokens, unknown[0] as string)], 30);
    expect(keyFetches()).toBe(2);
  });
});

describe("an authority that cannot be reached", () => {
  it.each(["closed", "error", "hang"] as const)(
    "before the first discovery (%s): 503 AuthorityUnavailable, never a 401 nor a pass; then it recovers",
    async (fault) => {
      const down = await startOpenIdIssuer();
      try {
        const token = await down.mint();
        await down.setFault(fault);
        const fresh = validatorFor(down.authority);
        const error = await fresh.principalOf(`Bearer ${token}`).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(AuthorityUnavailable);
        expect(error).toBeInstanceOf(ServiceUnavailable);
        expect((error as ServiceUnavailable).status).toBe(503);
        expect((error as ServiceUnavailable).retryAfterSeconds).toBeGreaterThan(0);
        await down.setFault("none");
        await expect(fresh.principalOf(`Bearer ${token}`)).resolves.toMatchObject({ kind: "entra" });
      } finally {
        await down.close();
      }
    },
    20_000,
  );

  it("after discovery, before the keys: 503, not a 401", async () => {
    const down = await startOpenIdIssuer();
    try {
      const fresh = validatorFor(down.authority);
      // A foreign issuer is judged after discovery and before the keys.
      const foreign = await down.mint({ claims: { iss: "https://evil.example/" } });
      expect((await refusal(`Bearer ${foreign}`, fresh)).message).toMatch(/issuer/);
      expect(down.requestCount(down.jwksUri())).toBe(0);
      await down.setFault("error");
      const error = await fresh.principalOf(`Bearer ${await down.mint()}`).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(AuthorityUnavailable);
    } finally {
      await down.close();
    }
  });
});

describe("tokens validated before (kept per host)", () => {
  let own: OpenIdIssuer;
  beforeEach(async () => {
    own = await startOpenIdIssuer();
  });
  afterEach(() => own.close());

  function fresh(acceptedTokens?: number): TokenValidator {
    return new TokenValidator({
      authority: own.authority,
      audiences: [LOCAL_CLIENT_ID],
      allowedTenants: [LOCAL_TENANT_ID],
      ...(acceptedTokens !== undefined && { acceptedTokens }),
    });
  }

  it("keeps a good token, and refuses it as expired once its exp (with the tolerance) has passed", async () => {
    const tokens = fresh();
    const start = Date.now();
    const token = await own.mint({ now: Math.floor(start / 1000), lifetimeSeconds: 120 });
    await tokens.principalOf(`Bearer ${token}`);
    await tokens.principalOf(`Bearer ${token}`);
    expect(tokens.acceptedTokenCount).toBe(1);
    jest.spyOn(Date, "now").mockImplementation(() => start + 170_000);
    await expect(tokens.principalOf(`Bearer ${token}`)).resolves.toMatchObject({ kind: "entra" });
    jest.spyOn(Date, "now").mockImplementation(() => start + 182_000);
    expect((await refusal(`Bearer ${token}`, tokens)).message).toMatch(/expired/);
    expect(tokens.acceptedTokenCount).toBe(0);
  });

  it("keeps it no longer than the key set: a token of a withdrawn key is refused within 10 minutes", async () => {
    const tokens = fresh();
    const start = Date.now();
    const token = await own.mint({ lifetimeSeconds: 8 * 3600 });
    await tokens.principalOf(`Bearer ${token}`);
    await own.rotateKey({ retireOld: true });
    // Tokens cannot be revoked; until the key set is read again, the token passes (as without a cache).
    await expect(tokens.principalOf(`Bearer ${token}`)).resolves.toMatchObject({ kind: "entra" });
    jest.spyOn(Date, "now").mockImplementation(() => start + 10 * 60_000 + 1000);
    expect((await refusal(`Bearer ${token}`, tokens)).message).toMatch(/key the authority does not publish/);
    // The new key's tokens pass (minted at the real time: jose reads the clock through new Date()).
    const current = await own.mint({ now: Math.floor(start / 1000) });
    await expect(tokens.principalOf(`Bearer ${current}`)).resolves.toMatchObject({ kind: "entra" });
  });

  it("keys on the whole token: a changed copy of a kept token is validated in full, and refused", async () => {
    const tokens = fresh();
    const token = await own.mint({ name: "alice" });
    await tokens.principalOf(`Bearer ${token}`);
    const [header, , signature] = token.split(".");
    const claims = { ...JSON.parse(Buffer.from(token.split(".")[1] as string, "base64url").toString()) };
    claims.oid = principalObjectId("admin");
    const forged = `${header}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.${signature}`;
    expect((await refusal(`Bearer ${forged}`, tokens)).message).toMatch(/signature is not valid/);
    // A different spelling of the header carries the same token: still the kept one.
    await expect(tokens.principalOf(`bearer  ${token} `)).resolves.toMatchObject({
      objectId: principalObjectId("alice"),
    });
  });

  it("hands out a principal no caller can change for the next one", async () => {
    const tokens = fresh();
    const header = `Bearer ${await own.mint({ name: "alice" })}`;
    await tokens.principalOf(header);
    const kept = await tokens.principalOf(header);
    expect(() => {
      (kept as { objectId: string }).objectId = principalObjectId("admin");
    }).toThrow(TypeError);
    expect((await tokens.principalOf(header)).objectId).toBe(principalObjectId("alice"));
  });

  it("keeps at most the configured number, the oldest going first; 0 keeps none", async () => {
    const bounded = fresh(3);
    const none = fresh(0);
    for (let index = 0; index < 6; index++) {
      const header = `Bearer ${await own.mint({ name: `user-${index}` })}`;
      await bounded.principalOf(header);
      await none.principalOf(header);
      await none.principalOf(header);
    }
    expect(bounded.acceptedTokenCount).toBe(3);
    expect(none.acceptedTokenCount).toBe(0);
  });
});
