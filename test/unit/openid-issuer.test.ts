import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { createRemoteJWKSet, jwtVerify } from "jose";
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
import { removeTempDirs, tempDir } from "../support/temp-dirs";

// The local issuer judged as a relying party judges it: discovery, the published key set, jose.
// (The service's own validator against it, forged tokens and the fault switches: auth-token-validator.test.ts.)

const OTHER_TENANT = "11111111-2222-4333-8444-555555555555";
let issuer: OpenIdIssuer;

beforeAll(async () => {
  issuer = await startOpenIdIssuer();
});
afterAll(async () => {
  await issuer.close();
  removeTempDirs();
});

async function getJson(url: string): Promise<Record<string, unknown>> {
  return (await (await fetch(url)).json()) as Record<string, unknown>;
}

async function verify(token: string) {
  const body = await getJson(issuer.discoveryUrl());
  return jwtVerify(token, createRemoteJWKSet(new URL(body.jwks_uri as string)), {
    issuer: body.issuer as string,
    audience: [LOCAL_CLIENT_ID, LOCAL_APP_ID_URI],
    algorithms: ["RS256"],
  });
}

it("serves discovery per tenant ({tenantid} for aliases) and public keys only; errors elsewhere", async () => {
  expect(issuer.authority).toBe(`http://127.0.0.1:${issuer.port}/${LOCAL_TENANT_ID}/v2.0`);
  expect(await getJson(issuer.discoveryUrl())).toMatchObject({
    issuer: issuer.authority,
    jwks_uri: issuer.jwksUri(),
    token_endpoint: expect.stringContaining("/oauth2/v2.0/token"),
  });
  expect((await getJson(issuer.discoveryUrl(OTHER_TENANT))).issuer).toBe(issuer.issuer(OTHER_TENANT));
  expect((await getJson(issuer.discoveryUrl("organizations"))).issuer).toBe(
    `${issuer.origin}/{tenantid}/v2.0`,
  );
  const keys = (await getJson(issuer.jwksUri())).keys as Record<string, unknown>[];
  for (const key of keys) {
    expect(key).toMatchObject({ kty: "RSA", use: "sig", alg: "RS256", kid: expect.any(String) });
    for (const secret of ["d", "p", "q", "dp", "dq", "qi"]) expect(key).not.toHaveProperty(secret);
  }
  expect(keys.map((key) => key.kid)).toEqual([issuer.kid]);
  for (const urlPath of [
    "/not-a-tenant/v2.0/.well-known/openid-configuration",
    `/${LOCAL_TENANT_ID}/oauth2/v2.0/token`,
  ]) {
    expect((await fetch(`${issuer.origin}${urlPath}`)).status).toBe(404);
  }
  expect((await fetch(issuer.jwksUri(), { method: "POST", body: "{}" })).status).toBe(405);
});

describe("mint", () => {
  it("makes a v2 user token: oid from the name, pairwise sub, scp, an hour", async () => {
    const { payload, protectedHeader } = await verify(await issuer.mint({ name: "alice" }));
    expect(protectedHeader).toEqual({ alg: "RS256", kid: issuer.kid, typ: "JWT" });
    expect(payload).toMatchObject({
      iss: issuer.authority,
      aud: LOCAL_CLIENT_ID,
      tid: LOCAL_TENANT_ID,
      oid: principalObjectId("alice"),
      ver: "2.0",
      scp: "user_impersonation",
    });
    expect(payload).not.toHaveProperty("idtyp");
    expect(payload.sub).not.toBe(payload.oid);
    expect((payload.exp as number) - (payload.iat as number)).toBe(3600);
  });

  // v1 tokens and the validator's acceptance of each kind: auth-token-validator.test.ts ("good tokens").
  it("makes app tokens: idtyp, roles, no scp, sub = oid, a client id of their own", async () => {
    const { payload: app } = await verify(
      await issuer.mint({ name: "ingest", app: true, roles: ["T.Send"] }),
    );
    expect(app).toMatchObject({ idtyp: "app", roles: ["T.Send"], sub: principalObjectId("ingest") });
    expect(app).not.toHaveProperty("scp");
    expect(app.azp).not.toBe(app.oid);
  });
});

describe("the key file", () => {
  const keyFile = (dir = "") => path.join(tempDir("issuer-key-"), dir, "issuer-key.json");

  it("is made owner-only on first start and reused after a restart, its tokens still verifying", async () => {
    const file = keyFile("nested");
    const first = await startOpenIdIssuer({ keyFile: file });
    const token = await first.mint();
    await first.close();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const second = await startOpenIdIssuer({ keyFile: file, port: first.port });
    try {
      expect(second.kid).toBe(first.kid);
      const keys = createRemoteJWKSet(new URL(second.jwksUri()));
      await expect(jwtVerify(token, keys, { issuer: second.authority })).resolves.toBeDefined();
    } finally {
      await second.close();
    }
    chmodSync(file, 0o644);
    await readSigningKeyFile(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("is made once when starts race for it, and not by reading: a missing one says to run npm start", async () => {
    const file = keyFile();
    await expect(readSigningKeyFile(file)).rejects.toThrow(/^No local issuer key at .*run `npm start` first/);
    expect(existsSync(file)).toBe(false);
    const raced = await Promise.all([1, 2, 3].map(() => loadOrCreateSigningKeyFile(file)));
    expect(new Set(raced.map((key) => key.kid)).size).toBe(1);
  });

  it.each([
    ["not JSON", "{"],
    ["a public key", JSON.stringify({ kty: "RSA", n: "AQAB", e: "AQAB" })],
    ["null", "null"],
  ])("is refused, untouched, with a way out when it is %s", async (_what, content) => {
    const file = keyFile();
    writeFileSync(file, content);
    await expect(startOpenIdIssuer({ keyFile: file })).rejects.toThrow(
      /issuer-key\.json does not hold the local issuer's RSA private key .*delete it/,
    );
    expect(readFileSync(file, "utf8")).toBe(content);
  });
});
