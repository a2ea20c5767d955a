import { randomBytes, timingSafeEqual } from "node:crypto";
import * as http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { generateSigningKey, loadOrCreateSigningKeyFile, type SigningKey } from "../openid/signing-key";
import { findIdentity, type IdentitySelector } from "./identities";
import { mintManagedIdentityToken } from "./tokens";

/**
 * A stand-in for App Service's managed identity endpoint (what IDENTITY_ENDPOINT names in a
 * function app): `GET /msi/token?resource=…&api-version=2019-08-01[&client_id|mi_res_id|object_id|principal_id=…]`
 * with header `X-IDENTITY-HEADER`, answered as App Service does. `@azure/identity`'s
 * ManagedIdentityCredential (through MSAL) uses it when IDENTITY_ENDPOINT and IDENTITY_HEADER are
 * set. `GET /msi/keys` publishes the key set its tokens verify with (the Service Bus stand-in
 * fetches it), standing in for Entra ID's.
 */
export interface ManagedIdentityEndpointOptions {
  /** 0 (default): a free port. Listens on 127.0.0.1 only. */
  port?: number;
  /** The secret callers must send; default a random one. */
  header?: string;
  /** Keep the signing key in this file (made on first start); default in memory. */
  keyFile?: string;
}

export interface ManagedIdentityEndpoint {
  readonly port: number;
  /** IDENTITY_ENDPOINT: `http://127.0.0.1:{port}/msi/token`. */
  readonly endpoint: string;
  /** IDENTITY_HEADER. */
  readonly header: string;
  /** The key set tokens are signed with. */
  readonly jwksUri: string;
  readonly signingKey: SigningKey;
  /** Token requests answered 200 so far (tests check that credentials cache). */
  tokensIssued(): number;
  /**
   * A fault switch: while on, token requests are taken and not answered, as by an identity
   * endpoint that accepts connections and hangs. Once off, it answers again: the new requests,
   * and, late, those it held.
   */
  hang(on: boolean): void;
  /** Token requests taken and left unanswered by the switch so far. */
  tokensHeld(): number;
  close(): Promise<void>;
}

export const API_VERSION = "2019-08-01";
export const TOKEN_PATH = "/msi/token";
export const KEYS_PATH = "/msi/keys";

type Answer = { status: number; body: unknown };

function failure(status: number, message: string): Answer {
  // App Service's error body; MSAL reports `message` to the caller.
  return {
    status,
    body: { statusCode: status, message, error: "invalid_request", error_description: message },
  };
}

function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function selectorOf(query: URLSearchParams): IdentitySelector {
  const value = (name: string) => query.get(name) ?? undefined;
  const selector: IdentitySelector = {};
  const clientId = value("client_id");
  const resourceId = value("mi_res_id");
  const principalId = value("object_id") ?? value("principal_id");
  if (clientId !== undefined) selector.clientId = clientId;
  if (resourceId !== undefined) selector.resourceId = resourceId;
  if (principalId !== undefined) selector.principalId = principalId;
  return selector;
}

async function answerToken(
  url: URL,
  headerValue: string | undefined,
  secret: string,
  key: SigningKey,
): Promise<Answer> {
  if (!sameSecret(headerValue, secret)) {
    return failure(401, "The X-IDENTITY-HEADER header is missing or does not match IDENTITY_HEADER.");
  }
  const query = url.searchParams;
  if (query.get("api-version") !== API_VERSION) {
    return failure(400, `api-version must be ${API_VERSION}.`);
  }
  const resource = query.get("resource");
  if (!resource) return failure(400, "The resource parameter is required.");
  const identity = findIdentity(selectorOf(query));
  if (identity === undefined) return failure(400, "Identity not found");
  const token = await mintManagedIdentityToken(key, identity, resource);
  return {
    status: 200,
    body: {
      access_token: token.accessToken,
      // App Service answers seconds since the epoch, as a string.
      expires_on: String(token.expiresOn),
      resource: token.resource,
      token_type: "Bearer",
      client_id: identity.clientId,
    },
  };
}

export async function startManagedIdentityEndpoint(
  options: ManagedIdentityEndpointOptions = {},
): Promise<ManagedIdentityEndpoint> {
  const key = options.keyFile
    ? (await loadOrCreateSigningKeyFile(options.keyFile)).key
    : await generateSigningKey();
  const secret = options.header ?? randomBytes(24).toString("base64url");
  const sockets = new Set<Socket>();
  let issued = 0;
  let hanging = false;
  let held = 0;
  /** The requests the switch holds, answered (late) once it is off, as a recovering endpoint would. */
  let holding: (() => void)[] = [];

  const answer = (request: http.IncomingMessage, response: http.ServerResponse) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (hanging && url.pathname === TOKEN_PATH) {
      held++;
      holding.push(() => answer(request, response));
      return;
    }
    const header = request.headers["x-identity-header"];
    const answering: Promise<Answer> =
      request.method !== "GET"
        ? Promise.resolve(failure(405, "Only GET is served."))
        : url.pathname === TOKEN_PATH
          ? answerToken(url, Array.isArray(header) ? header[0] : header, secret, key)
          : url.pathname === KEYS_PATH
            ? Promise.resolve({ status: 200, body: { keys: [key.publicJwk] } })
            : Promise.resolve(failure(404, "Not found."));
    answering
      .catch((error: unknown) => failure(500, `The stand-in failed: ${(error as Error).message}`))
      .then((answer) => {
        if (answer.status === 200 && url.pathname === TOKEN_PATH) issued++;
        const body = JSON.stringify(answer.body);
        response.writeHead(answer.status, {
          "content-type": "application/json; charset=utf-8",
          "content-length": Buffer.byteLength(body),
        });
        response.end(body);
      });
  };
  const server = http.createServer(answer);
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
  const origin = `http://127.0.0.1:${port}`;
  return {
    port,
    endpoint: `${origin}${TOKEN_PATH}`,
    header: secret,
    jwksUri: `${origin}${KEYS_PATH}`,
    signingKey: key,
    tokensIssued: () => issued,
    hang: (on) => {
      hanging = on;
      if (on) return;
      const late = holding;
      holding = [];
      for (const each of late) each();
    },
    tokensHeld: () => held,
    close: () =>
      new Promise<void>((resolve) => {
        if (!server.listening) return resolve();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
