import type { Message, Receiver } from "rhea";
import type { ConnectionScope } from "./connection-scope";
import { type EntityPath, parseLinkAddress } from "./entity-address";
import { type Reply, serveRequests } from "./request-response";
import type { TokenVerdict } from "./token-check";

const SAS_TOKEN_TYPE = "servicebus.windows.net:sastoken";
const JWT_TYPE = "jwt";

/** How `$cbs` checks the tokens it is given; absent: JWTs are refused (SAS tokens always pass). */
export type CheckToken = (token: string) => Promise<TokenVerdict>;

/**
 * Claims-based security: before using an entity the SDK sends `put-token` to `$cbs` with a token
 * for it (`name` = the entity's URL) and waits for status 200. SAS tokens are granted without
 * being read (a local double has nothing to protect: any SharedAccessKey works). JWTs (Entra ID,
 * from ManagedIdentityCredential) are verified against the managed-identity stand-in's key set
 * and refused with 401 as Service Bus does; a verified one records its principal for the entity,
 * so attaching a sender can check the principal's role (link-router.ts).
 */
export function serveCbs(
  requests: Receiver,
  scope: ConnectionScope,
  checkToken: CheckToken | undefined,
): void {
  serveRequests(requests, scope, (request) => putToken(request, scope, checkToken));
}

async function putToken(
  request: Message,
  scope: ConnectionScope,
  checkToken: CheckToken | undefined,
): Promise<Reply> {
  const properties = request.application_properties ?? {};
  if (properties.operation !== "put-token") {
    return cbsStatus(501, "The Service Bus stand-in's $cbs node only serves put-token.");
  }
  const entity = entityOf(properties.name);
  if (properties.type === SAS_TOKEN_TYPE) {
    if (entity) scope.grant(entity, { kind: "sas" });
    return cbsStatus(200, "OK");
  }
  if (properties.type !== JWT_TYPE) {
    return cbsStatus(400, `Unsupported token type ${String(properties.type)}.`);
  }
  if (checkToken === undefined) {
    return cbsStatus(
      401,
      "Unauthorized: this Service Bus stand-in takes SAS tokens only (no key set configured).",
    );
  }
  const token: unknown = request.body;
  const verdict =
    typeof token === "string" ? await checkToken(token) : { ok: false as const, reason: "no token" };
  if (!verdict.ok) return cbsStatus(401, `Unauthorized: ${verdict.reason}.`);
  if (entity) scope.grant(entity, { kind: "principal", principalId: verdict.principalId });
  return cbsStatus(200, "OK");
}

/** The entity a put-token's `name` (its audience, `sb://host/entity`) is for; the namespace when none. */
function entityOf(name: unknown): EntityPath | undefined {
  if (typeof name !== "string") return undefined;
  const parsed = parseLinkAddress(name);
  return parsed !== undefined && (parsed.kind === "topic" || parsed.kind === "subscription")
    ? parsed
    : undefined;
}

function cbsStatus(code: number, description: string): Reply {
  return { application_properties: { "status-code": code, "status-description": description } };
}
