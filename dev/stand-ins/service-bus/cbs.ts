import type { Receiver } from "rhea";
import type { ConnectionScope } from "./connection-scope";
import { type Reply, serveRequests } from "./request-response";

/**
 * Claims-based security: before using an entity the SDK sends `put-token` to `$cbs` with a SAS
 * token for it and waits for status 200. The stand-in grants every token without reading it (a
 * local double has nothing to protect), so any SharedAccessKey in the connection string works.
 */
export function serveCbs(requests: Receiver, scope: ConnectionScope): void {
  serveRequests(requests, scope, (request) => {
    const operation: unknown = request.application_properties?.operation;
    return operation === "put-token"
      ? cbsStatus(200, "OK")
      : cbsStatus(501, "The Service Bus stand-in's $cbs node only serves put-token.");
  });
}

function cbsStatus(code: number, description: string): Reply {
  return { application_properties: { "status-code": code, "status-description": description } };
}
