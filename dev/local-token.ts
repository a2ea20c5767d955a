import { isLocalIssuerAuthority } from "./auth-plan";
import { localEnvFile, readLocalEnvFile } from "./local-env-file";
import { displayPath, issuerKeyFile } from "./local-paths";
import type { Settings } from "./local-settings";
import { answersHttp, noLocalStack } from "./running-stack";
import { readPort } from "./stack-plan";
import {
  issuerUrl,
  LOCAL_TENANT_ID,
  mintToken,
  principalObjectId,
  readSigningKeyFile,
} from "./stand-ins/openid-issuer";
import { StartupError } from "./startup-error";

/** How long the developer's token in `.local/local.env` lasts: a working day. */
export const DEVELOPER_TOKEN_HOURS = 8;
/** The longest a local token may last: they are bearer credentials, even locally. */
export const MAX_TOKEN_HOURS = 24;

export interface LocalTokenRequest {
  name: string;
  /** An application (ServicePrincipal) token instead of a user's. */
  app: boolean;
  hours: number;
}

export interface LocalToken {
  token: string;
  objectId: string;
  authority: string;
}

/**
 * The authority the local stack's issuer runs as: what the running stack wrote to
 * `.local/local.env`, else the settings' AUTH_AUTHORITY, else the local issuer on an ISSUER_PORT
 * the settings name; never the default port. The file comes first because a shell may still
 * carry an older start's value. The issuer must answer: a token for a stopped stack's issuer is
 * no use, and a port taken since by something else must not be named in one.
 */
async function localAuthority(settings: Settings): Promise<string> {
  const fromFile = readLocalEnvFile(settings).AUTH_AUTHORITY;
  const authority =
    fromFile ??
    (settings.AUTH_AUTHORITY?.trim() ||
      (settings.ISSUER_PORT?.trim()
        ? issuerUrl(`http://127.0.0.1:${readPort(settings, "ISSUER_PORT")}`, LOCAL_TENANT_ID)
        : undefined));
  const file = displayPath(localEnvFile(settings));
  if (authority === undefined) {
    throw noLocalStack(
      `No local stack is running: there is no ${file} (\`npm start\` writes it, with the issuer it runs), and no ISSUER_PORT is set.`,
    );
  }
  if (!isLocalIssuerAuthority(authority)) {
    throw new StartupError(
      `AUTH_AUTHORITY is ${authority}, not the local issuer: get tokens from that authority (for example with \`az account get-access-token\`).`,
    );
  }
  const trimmed = authority.replace(/\/$/, "");
  if (!(await answersHttp(`${trimmed}/.well-known/openid-configuration`))) {
    throw noLocalStack(
      `No local issuer answers at ${trimmed} (${fromFile === undefined ? "from the settings" : `AUTH_AUTHORITY in ${file}`}): the stack it ran in has stopped.`,
    );
  }
  return trimmed;
}

/** A token for a local principal, signed with the local issuer's key (the file `npm start` made). */
export async function mintLocalToken(settings: Settings, request: LocalTokenRequest): Promise<LocalToken> {
  if (request.name.trim() === "") throw new StartupError("The principal name is empty.");
  if (!Number.isInteger(request.hours) || request.hours < 1 || request.hours > MAX_TOKEN_HOURS) {
    throw new StartupError(`--hours takes a whole number from 1 to ${MAX_TOKEN_HOURS}.`);
  }
  const key = await readSigningKeyFile(issuerKeyFile(settings));
  const authority = await localAuthority(settings);
  const { origin, pathname } = new URL(authority);
  const token = await mintToken(key, origin, {
    name: request.name,
    app: request.app,
    tenantId: pathname.split("/")[1] ?? LOCAL_TENANT_ID,
    lifetimeSeconds: request.hours * 3600,
  });
  return { token, objectId: principalObjectId(request.name), authority };
}
