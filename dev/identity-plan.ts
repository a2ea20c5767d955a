import { randomBytes } from "node:crypto";
import * as path from "node:path";
import { localDataDir } from "./local-paths";
import { isSet, type Settings } from "./local-settings";
import { caBundleFile, localTlsFiles } from "./local-tls";
// The identities only, not the stand-in: the host's own process imports this through stack-plan.
import { LOCAL_SERVICEBUS_SENDERS, USER_ASSIGNED_IDENTITIES } from "./stand-ins/managed-identity/identities";

/** The managed-identity stand-in of a stack, and what the host is told about it. */
export interface IdentityPlan {
  port: number;
  /** IDENTITY_ENDPOINT. */
  endpoint: string;
  /** IDENTITY_HEADER: a new random secret for every stack. */
  header: string;
  /** The stand-in's signing key (a private JWK) when the stack keeps its data. */
  keyFile: string;
  /** The local TLS certificate: the host's NODE_EXTRA_CA_CERTS. */
  certFile: string;
  /** The developer's own NODE_EXTRA_CA_CERTS: Node takes one file, so the host gets a bundle of both. */
  inheritedCaFile?: string;
}

/**
 * Managed identities locally as in a function app: IDENTITY_ENDPOINT and IDENTITY_HEADER (MSAL's
 * App Service source), NODE_EXTRA_CA_CERTS for the stand-ins' certificate, the user-assigned
 * identities endpoints may name, and the Service Bus senders (unless the developer set them).
 */
export function planManagedIdentity(settings: Settings, port: number): IdentityPlan {
  const plan: IdentityPlan = {
    port,
    endpoint: `http://127.0.0.1:${port}/msi/token`,
    header: randomBytes(24).toString("base64url"),
    keyFile: path.join(localDataDir(settings), "managed-identity-key.json"),
    // Named, not read: the stack makes (or checks) the certificate when it starts.
    certFile: localTlsFiles().certFile,
  };
  settings.IDENTITY_PORT = String(port);
  settings.IDENTITY_ENDPOINT = plan.endpoint;
  settings.IDENTITY_HEADER = plan.header;
  const inherited = settings.NODE_EXTRA_CA_CERTS;
  if (isSet(inherited) && inherited !== plan.certFile && inherited !== caBundleFile())
    plan.inheritedCaFile = inherited;
  settings.NODE_EXTRA_CA_CERTS = plan.inheritedCaFile === undefined ? plan.certFile : caBundleFile();
  if (!isSet(settings.ENDPOINT_USER_ASSIGNED_IDENTITIES)) {
    settings.ENDPOINT_USER_ASSIGNED_IDENTITIES = USER_ASSIGNED_IDENTITIES.map(
      ({ resourceId }) => resourceId,
    ).join(",");
  }
  if (!isSet(settings.SERVICEBUS_DATA_SENDERS))
    settings.SERVICEBUS_DATA_SENDERS = LOCAL_SERVICEBUS_SENDERS.join(",");
  return plan;
}
