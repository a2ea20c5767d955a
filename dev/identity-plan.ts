import { randomBytes } from "node:crypto";
import * as path from "node:path";
import { localDataDir } from "./local-paths";
import type { Settings } from "./local-settings";
import { caBundleFile, localTlsFiles } from "./local-tls";
// The identities only, not the stand-in: the local host's own process imports this through stack-plan.
import { LOCAL_SERVICEBUS_SENDERS, USER_ASSIGNED_IDENTITIES } from "./stand-ins/managed-identity/identities";

/** The managed-identity stand-in of a stack, and what the host is told about it. */
export interface IdentityPlan {
  port: number;
  /** IDENTITY_ENDPOINT: `http://127.0.0.1:{port}/msi/token`. */
  endpoint: string;
  /** IDENTITY_HEADER: a new random secret for every stack. */
  header: string;
  /** Where `npm start` keeps the stand-in's signing key (a private JWK), made on first start. */
  keyFile: string;
  /** The local TLS certificate: NODE_EXTRA_CA_CERTS of the host. */
  certFile: string;
  /**
   * A NODE_EXTRA_CA_CERTS the developer had (a company proxy's CA, say): Node takes one file, so
   * the stack gives the host a bundle of that file and the local certificate (local-tls.ts).
   */
  inheritedCaFile?: string;
}

function isSet(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== "";
}

/**
 * The settings that let the service use managed identities locally as in a function app: MSAL's
 * App Service source reads IDENTITY_ENDPOINT and IDENTITY_HEADER; NODE_EXTRA_CA_CERTS makes Node
 * trust the local certificate of the AMQPS and HTTPS stand-ins (read at process start only);
 * ENDPOINT_USER_ASSIGNED_IDENTITIES lists the user-assigned identities endpoints may name; the
 * Service Bus stand-in gives the sender role to SERVICEBUS_DATA_SENDERS. A sender list the
 * developer set is kept.
 */
export function planManagedIdentity(settings: Settings, port: number): IdentityPlan {
  const plan: IdentityPlan = {
    port,
    endpoint: `http://127.0.0.1:${port}/msi/token`,
    header: randomBytes(24).toString("base64url"),
    keyFile: path.join(localDataDir(settings), "managed-identity-key.json"),
    // Named, not read: the certificate is made (or checked) when the stack starts (local-tls.ts).
    certFile: localTlsFiles().certFile,
  };
  settings.IDENTITY_PORT = String(port);
  settings.IDENTITY_ENDPOINT = plan.endpoint;
  settings.IDENTITY_HEADER = plan.header;
  const inherited = settings.NODE_EXTRA_CA_CERTS;
  if (isSet(inherited) && inherited !== plan.certFile && inherited !== caBundleFile()) {
    plan.inheritedCaFile = inherited;
  }
  settings.NODE_EXTRA_CA_CERTS = plan.inheritedCaFile === undefined ? plan.certFile : caBundleFile();
  if (!isSet(settings.ENDPOINT_USER_ASSIGNED_IDENTITIES)) {
    settings.ENDPOINT_USER_ASSIGNED_IDENTITIES = USER_ASSIGNED_IDENTITIES.map(
      ({ resourceId }) => resourceId,
    ).join(",");
  }
  if (!isSet(settings.SERVICEBUS_DATA_SENDERS)) {
    settings.SERVICEBUS_DATA_SENDERS = LOCAL_SERVICEBUS_SENDERS.join(",");
  }
  return plan;
}
