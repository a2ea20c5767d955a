import { generateKeyPairSync } from "node:crypto";
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeJwt,
  errors,
  type JWTVerifyOptions,
  jwtVerify,
} from "jose";
import {
  LOCAL_APP_ID_URI,
  LOCAL_CLIENT_ID,
  LOCAL_TENANT_ID,
  loadOrCreateSigningKeyFile,
  type OpenIdIssuer,
  principalObjectId,
  readSigningKeyFile,
  startOpenIdIssuer,
} from "../../dev/stand-ins/openid-issuer";
import { loadConfig } from "../../src/config";
import { removeTempDirs, tempDir } from "../support/temp-dirs";
import { bearer, entraSettings, startTestIssuer } from "../support/test-issuer";

// The local issuer over HTTP on loopback, judged as a relying party judges it: discovery, then the
// published key set, then jose's own verification of what it mints.

const OTHER_TENANT = "11111111-2222-4333-8444-555555555555";
let issuer: OpenIdIssuer;

beforeAll(async () => {
  issuer = await startOpenIdIssuer();
});
afterAll(async () => {
  await issuer.close();
  removeTempDirs();
});

async function getJson(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Verifies as a relying party does: the discovery document names the issuer and the key set. */
async function verify(token: string, tenant = LOCAL_TENANT_ID, options: JWTVerifyOptions = {}) {
  const { body } = await getJson(issuer.discoveryUrl(tenant));
  const keys = createRemoteJWKSet(new URL(body.jwks_uri as string));
  return jwtVerify(token, keys, {
    issuer: body.issuer as string,
    audience: [LOCAL_CLIENT_ID, LOCAL_APP_ID_URI],
    algorithms: ["RS256"],
    ...options,
  });
}

describe("discovery and keys", () => {
  it("serves the local tenant's discovery document with its issuer and key set", async () => {
    const { status, body } = await getJson(issuer.discoveryUrl());
    expect(status).toBe(200);
    expect(issuer.authority).toBe(`http://127.0.0.1:${issuer.port}/${LOCAL_TENANT_ID}/v2.0`);
    expect(body).toMatchObject({
      issuer: issuer.authority,
      jwks_uri: `http://127.0.0.1:${issuer.port}/${LOCAL_TENANT_ID}/discovery/v2.0/keys`,
      id_token_signing_alg_values_supported: ["RS256"],
    });
    expect(body.authorization_endpoint).toEqual(expect.stringContaining("/oauth2/v2.0/authorize"));
    expect(body.token_endpoint).toEqual(expect.stringContaining("/oauth2/v2.0/token"));
    expect(`${issuer.authority}/.well-known/openid-configuration`).toBe(issuer.discoveryUrl());
  });

  it("serves any tenant id, and a {tenantid} template for the multi-tenant aliases", async () => {
    expect((await getJson(issuer.discoveryUrl(OTHER_TENANT))).body.issuer).toBe(
      `${issuer.origin}/${OTHER_TENANT}/v2.0`,
    );
    expect((await getJson(issuer.discoveryUrl("organizations"))).body.issuer).toBe(
      `${issuer.origin}/{tenantid}/v2.0`,
    );
  });

  it("publishes public keys only, each with kid, use and alg", async () => {
    const { status, body } = await getJson(issuer.jwksUri());
    expect(status).toBe(200);
    const keys = body.keys as Record<string, unknown>[];
    expect(keys.length).toBeGreaterThanOrEqual(1);
    for (const key of keys) {
      expect(key).toMatchObject({ kty: "RSA", use: "sig", alg: "RS256", kid: expect.any(String) });
      for (const secret of ["d", "p", "q", "dp", "dq", "qi"]) expect(key).not.toHaveProperty(secret);
    }
    expect(keys.map((key) => key.kid)).toContain(issuer.kid);
  });

  it.each([
    ["an unknown tenant segment", "/not-a-tenant/v2.0/.well-known/openid-configuration", 404],
    ["an unknown path", `/${LOCAL_TENANT_ID}/v2.0/.well-known/other`, 404],
    ["a path outside a tenant", "/", 404],
    ["sign-in", `/${LOCAL_TENANT_ID}/oauth2/v2.0/token`, 400],
  ])("answers %s with an error", async (_what, urlPath, status) => {
    expect((await fetch(`${issuer.origin}${urlPath}`)).status).toBe(status);
  });

  it("refuses methods other than GET and HEAD", async () => {
    expect((await fetch(issuer.jwksUri(), { method: "POST", body: "{}" })).status).toBe(405);
    expect((await fetch(issuer.jwksUri(), { method: "HEAD" })).status).toBe(200);
  });
});

describe("mint", () => {
  it("makes a v2 user token that verifies against the served key set", async () => {
    const { payload, protectedHeader } = await verify(await issuer.mint({ name: "alice" }));
    expect(protectedHeader).toEqual({ alg: "RS256", kid: issuer.kid, typ: "JWT" });
    expect(payload).toMatchObject({
      iss: issuer.authority,
      aud: LOCAL_CLIENT_ID,
      tid: LOCAL_TENANT_ID,
      oid: principalObjectId("alice"),
      ver: "2.0",
      scp: "user_impersonation",
      name: "alice",
    });
    expect(payload).not.toHaveProperty("idtyp");
    expect(payload).not.toHaveProperty("roles");
    // A user's sub is pairwise, not the object id: the service must key on oid.
    expect(payload.sub).not.toBe(payload.oid);
    expect((payload.exp as number) - (payload.iat as number)).toBe(3600);
    expect(payload.nbf).toBe(payload.iat);
  });

  it("makes a v2 app token: idtyp app, roles, no scp, sub = oid", async () => {
    const { payload } = await verify(await issuer.mint({ name: "ingest", app: true, roles: ["Twin.Send"] }));
    expect(payload).toMatchObject({ idtyp: "app", roles: ["Twin.Send"], oid: principalObjectId("ingest") });
    expect(payload).not.toHaveProperty("scp");
    expect(payload.sub).toBe(payload.oid);
    expect(payload.azp).not.toBe(payload.oid);
  });

  it("makes a v1 token: its own issuer form, the App ID URI as audience", async () => {
    const token = await issuer.mint({ name: "bob", version: "1.0" });
    const { payload } = await verify(token, LOCAL_TENANT_ID, {
      issuer: `${issuer.origin}/${LOCAL_TENANT_ID}/`,
    });
    expect(payload).toMatchObject({ ver: "1.0", aud: LOCAL_APP_ID_URI, oid: principalObjectId("bob") });
    expect(payload).toHaveProperty("appid");
    expect(issuer.issuer(LOCAL_TENANT_ID, "1.0")).toBe(payload.iss);
  });

  it("mints for another tenant with that tenant's issuer", async () => {
    const { payload } = await verify(await issuer.mint({ tenantId: OTHER_TENANT }), OTHER_TENANT);
    expect(payload).toMatchObject({ tid: OTHER_TENANT, iss: `${issuer.origin}/${OTHER_TENANT}/v2.0` });
  });

  it("mints without a request to itself", async () => {
    const before = issuer.requestCount();
    await issuer.mint({ name: "quiet" });
    expect(issuer.requestCount()).toBe(before);
  });
});

describe("forged tokens (what tests use to try to break validation)", () => {
  it("an expired one fails as expired", async () => {
    const token = await issuer.mint({ now: Math.floor(Date.now() / 1000) - 7200 });
    await expect(verify(token)).rejects.toBeInstanceOf(errors.JWTExpired);
  });

  it("claims changed or removed", async () => {
    const token = await issuer.mint({ claims: { aud: "api://someone-else", oid: undefined, extra: 1 } });
    const payload = decodeJwt(token);
    expect(payload).not.toHaveProperty("oid");
    expect(payload.extra).toBe(1);
    await expect(verify(token)).rejects.toBeInstanceOf(errors.JWTClaimValidationFailed);
  });

  it("a kid the key set does not have", async () => {
    const token = await issuer.mint({ header: { kid: "unknown" } });
    await expect(verify(token)).rejects.toBeInstanceOf(errors.JWKSNoMatchingKey);
  });

  it("another RSA key under the issuer's kid", async () => {
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const token = await issuer.mint({ signingKey: privateKey });
    await expect(verify(token)).rejects.toBeInstanceOf(errors.JWSSignatureVerificationFailed);
  });

  it("HS256 with a shared secret, and no signature at all", async () => {
    const hs = await issuer.mint({
      header: { alg: "HS256" },
      signingKey: new TextEncoder().encode("x".repeat(32)),
    });
    await expect(verify(hs)).rejects.toBeInstanceOf(errors.JOSEAlgNotAllowed);
    const none = await issuer.mint({ unsigned: true });
    expect(none.endsWith(".")).toBe(true);
    await expect(verify(none)).rejects.toThrow();
  });
});

describe("request counts and faults", () => {
  it("counts requests per path, by path or URL, and resets", async () => {
    issuer.resetRequestCounts();
    await fetch(issuer.discoveryUrl());
    await fetch(issuer.jwksUri());
    await fetch(issuer.jwksUri());
    expect(issuer.requestCount()).toBe(3);
    expect(issuer.requestCount(issuer.jwksUri())).toBe(2);
    expect(issuer.requestCount(new URL(issuer.discoveryUrl()).pathname)).toBe(1);
    expect(Object.values(issuer.requests())).toEqual([1, 2]);
    issuer.resetRequestCounts();
    expect(issuer.requestCount()).toBe(0);
  });

  it("answers 500, hangs, closes its port, and serves again on the same port", async () => {
    const own = await startOpenIdIssuer();
    try {
      await own.setFault("error");
      expect((await fetch(own.jwksUri())).status).toBe(500);
      expect((await fetch(own.discoveryUrl())).status).toBe(500);

      await own.setFault("keys-error");
      expect((await fetch(own.jwksUri())).status).toBe(500);
      expect((await fetch(own.discoveryUrl())).status).toBe(200);

      await own.setFault("hang");
      await expect(fetch(own.jwksUri(), { signal: AbortSignal.timeout(300) })).rejects.toThrow();

      await own.setFault("closed");
      await expect(fetch(own.jwksUri())).rejects.toThrow("fetch failed");
      const counted = own.requestCount();

      await own.setFault("none");
      expect((await fetch(own.jwksUri())).status).toBe(200);
      expect(own.requestCount()).toBe(counted + 1);
    } finally {
      await own.close();
    }
  });

  it("rotates keys: the new one signs, the old stays published until retired", async () => {
    const own = await startOpenIdIssuer();
    const keySet = async () => createLocalJWKSet((await getJson(own.jwksUri())).body as never);
    try {
      const old = await own.mint();
      const first = own.kid;
      const second = await own.rotateKey();
      expect(second).not.toBe(first);
      expect(own.kid).toBe(second);
      const fresh = await own.mint();
      await expect(jwtVerify(old, await keySet())).resolves.toBeDefined();
      await expect(jwtVerify(fresh, await keySet())).resolves.toBeDefined();
      await own.rotateKey({ retireOld: true });
      await expect(jwtVerify(old, await keySet())).rejects.toBeInstanceOf(errors.JWKSNoMatchingKey);
    } finally {
      await own.close();
    }
  });
});

describe("the key file", () => {
  it("is made on first start (owner-only), reused after a restart, and its tokens keep verifying", async () => {
    const file = path.join(tempDir("issuer-key-"), "nested", "issuer-key.json");
    const first = await startOpenIdIssuer({ keyFile: file });
    const token = await first.mint({ name: "alice" });
    const kid = first.kid;
    await first.close();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ kty: "RSA", kid, d: expect.any(String) });

    const second = await startOpenIdIssuer({ keyFile: file, port: first.port });
    try {
      expect(second.kid).toBe(kid);
      const keys = createRemoteJWKSet(new URL(second.jwksUri()));
      await expect(jwtVerify(token, keys, { issuer: second.authority })).resolves.toBeDefined();
    } finally {
      await second.close();
    }
  });

  it("is made once when two starts race for it", async () => {
    const file = path.join(tempDir("issuer-key-"), "issuer-key.json");
    const results = await Promise.all([1, 2, 3].map(() => loadOrCreateSigningKeyFile(file)));
    expect(new Set(results.map(({ key }) => key.kid)).size).toBe(1);
    expect(results.filter(({ created }) => created)).toHaveLength(1);
    expect((await readSigningKeyFile(file)).kid).toBe(results[0]?.key.kid);
  });

  it("is tightened to owner-only when found readable by others", async () => {
    const file = path.join(tempDir("issuer-key-"), "issuer-key.json");
    await loadOrCreateSigningKeyFile(file);
    chmodSync(file, 0o644);
    await readSigningKeyFile(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it.each([
    ["not JSON", "{"],
    ["not a private key", JSON.stringify({ kty: "RSA", n: "AQAB", e: "AQAB" })],
    ["another key type", JSON.stringify({ kty: "oct", k: "c2VjcmV0" })],
    ["null", "null"],
  ])("is refused with a way out when it is %s", async (_what, content) => {
    const file = path.join(tempDir("issuer-key-"), "issuer-key.json");
    writeFileSync(file, content);
    await expect(startOpenIdIssuer({ keyFile: file })).rejects.toThrow(
      /issuer-key\.json does not hold the local issuer's RSA private key .*delete it/,
    );
    expect(readFileSync(file, "utf8")).toBe(content);
  });

  it("is not made by reading it: a missing file says to run npm start", async () => {
    const file = path.join(tempDir("issuer-key-"), "issuer-key.json");
    await expect(readSigningKeyFile(file)).rejects.toThrow(/^No local issuer key at .*run `npm start` first/);
    expect(existsSync(file)).toBe(false);
  });
});

describe("test support (test/support/test-issuer.ts)", () => {
  it("gives host settings the service's config takes as entra, and tokens for named principals", async () => {
    const own = await startTestIssuer();
    try {
      const config = loadConfig({
        COSMOS_ENDPOINT: "https://127.0.0.1:1/",
        AzureWebJobsStorage: "UseDevelopmentStorage=true",
        SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString("base64"),
        ...entraSettings(own),
        AUTH_ADMIN_PRINCIPALS: own.objectId("admin"),
      });
      expect(config).toMatchObject({
        AUTH_MODE: "entra",
        AUTH_AUTHORITY: own.authority,
        AUTH_ALLOWED_TENANTS: [LOCAL_TENANT_ID],
      });
      const user = decodeJwt(await own.userToken("reader", { scopes: ["a", "b"] }));
      expect(user).toMatchObject({ oid: own.objectId("reader"), scp: "a b" });
      const app = decodeJwt(await own.appToken("sender"));
      expect(app).toMatchObject({ oid: own.objectId("sender"), idtyp: "app" });
      expect(bearer("t")).toEqual({ authorization: "Bearer t" });
      const before = own.kid;
      await own.rotateKey();
      expect(own.kid).not.toBe(before);
    } finally {
      await own.close();
    }
  });
});
