import { createRemoteJWKSet, jwtVerify } from "jose";
import type { EventContext, Receiver, Sender } from "rhea";
import { MANAGED_IDENTITY_ISSUER } from "../managed-identity/identities";

/** What Entra ID tokens for Service Bus carry as audience (the resource, with or without its slash). */
const SERVICE_BUS_AUDIENCES = ["https://servicebus.azure.net", "https://servicebus.azure.net/"];
/** What `grants` holds for an entity whose latest token was a SAS token (all rights). */
export const SAS_GRANT = "sas";

export interface TokenSettings {
  /** The key set the managed-identity stand-in publishes (`/msi/keys`). */
  jwksUri: string;
  /** Principal ids (`oid`) holding "Azure Service Bus Data Sender" on the whole namespace. */
  senders: readonly string[];
}

/** The principal id a token was issued to; rejects with the reason when it is refused. */
type CheckToken = (token: string) => Promise<string>;

/** What `$cbs` keeps per client connection. */
export interface CbsState {
  /** The client's links that take `$cbs` replies, by link name (a request's `reply_to`). */
  replyLinks: Map<string, Sender>;
  /** By entity path, lower-cased: who the latest token put for it was granted to, SAS_GRANT or a principal id. */
  grants: Map<string, string>;
}

/** An entity's path from an address or token audience (`sb://host/topic`): no scheme and host. */
export function entityPath(address: string): string {
  return address.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*\//i, "");
}

/**
 * Claims-based security: before using an entity the SDK sends `put-token` to `$cbs` with a token
 * for it (`name` = the entity's URL) and waits for status 200, answered on the link its `reply_to`
 * names with `correlation_id` = the request's `message_id`. SAS tokens are granted without being
 * read (any SharedAccessKey works). JWTs are verified (tokenChecker) and refused with 401 as
 * Service Bus does; a verified one records its principal for the entity, whose role attaching a
 * sender then checks (index.ts).
 */
export function serveCbs(requests: Receiver, state: CbsState, checkToken: CheckToken | undefined): void {
  requests.on("message", ({ message: request, delivery }: EventContext) => {
    if (request === undefined || delivery === undefined) return;
    const replyLink = state.replyLinks.get(String(request.reply_to));
    if (replyLink === undefined) {
      return delivery.reject({
        condition: "amqp:precondition-failed",
        description: "reply_to names no reply link attached on this connection",
      });
    }
    // A token check fetches keys: its reply comes later; the SDK matches replies by correlation_id.
    void putToken(request.application_properties ?? {}, request.body, state, checkToken).then(
      ([code, description]) => {
        // The client may have gone while a token was being checked.
        if (!replyLink.is_open() || !requests.is_open()) return;
        replyLink.send({
          correlation_id: request.message_id,
          to: request.reply_to,
          application_properties: { "status-code": code, "status-description": description },
          body: undefined,
        });
        delivery.accept();
      },
      () => delivery.release(),
    );
  });
}

async function putToken(
  { operation, name, type }: Record<string, unknown>,
  token: unknown,
  state: CbsState,
  checkToken: CheckToken | undefined,
): Promise<[number, string]> {
  if (operation !== "put-token") return [501, "The Service Bus stand-in's $cbs node only serves put-token."];
  const entity = entityPath(String(name)).toLowerCase();
  if (type === "servicebus.windows.net:sastoken") {
    state.grants.set(entity, SAS_GRANT);
    return [200, "OK"];
  }
  if (type !== "jwt") return [400, `Unsupported token type ${String(type)}.`];
  if (checkToken === undefined)
    return [401, "Unauthorized: this Service Bus stand-in takes SAS tokens only."];
  try {
    state.grants.set(entity, await checkToken(String(token)));
    return [200, "OK"];
  } catch (error) {
    // jose's reasons name the claim or check that failed, never the token.
    return [401, `Unauthorized: ${(error as Error).message}.`];
  }
}

/**
 * Checks a JWT the way Service Bus checks an Entra ID token on `$cbs`: signed RS256 by a key of the
 * key set (never `alg: none`), issued by the local tenant's v1 issuer, for Service Bus, and within
 * its lifetime (no clock skew allowed: tests forge tokens seconds out of it).
 */
export function tokenChecker(settings: TokenSettings): CheckToken {
  const keys = createRemoteJWKSet(new URL(settings.jwksUri), { timeoutDuration: 5000 });
  return async (token) => {
    const { payload } = await jwtVerify(token, keys, {
      algorithms: ["RS256"],
      issuer: MANAGED_IDENTITY_ISSUER,
      audience: SERVICE_BUS_AUDIENCES,
      requiredClaims: ["exp", "oid"],
    });
    return String(payload.oid).toLowerCase();
  };
}
