import { localEnvFile, readLocalEnvFile } from "./local-env-file";
import { displayPath, issuerKeyFile } from "./local-paths";
import type { Settings } from "./local-settings";
import { answersHttp, noLocalStack } from "./running-stack";
import { isLocalIssuerAuthority } from "./stack-plan";
import { LOCAL_TENANT_ID, mintToken, principalObjectId, readSigningKeyFile } from "./stand-ins/openid-issuer";
import { StartupError } from "./startup-error";

/** How long the developer's token in `.local/local.env` lasts: a working day. */
export const DEVELOPER_TOKEN_HOURS = 8;
/** Local tokens are bearer credentials too: a day at most. */
export const MAX_TOKEN_HOURS = 24;

/**
 * The running stack's issuer: AUTH_AUTHORITY in `.local/local.env` (a shell may carry an older
 * start's), else the settings' (only to refuse one that is not local): like the other helpers,
 * nothing falls back to ports. It must answer: a stopped stack's port may have been taken since.
 */
async function localAuthority(settings: Settings): Promise<string> {
  const fromFile = readLocalEnvFile(settings).AUTH_AUTHORITY;
  const authority = fromFile ?? settings.AUTH_AUTHORITY?.trim();
  const file = displayPath(localEnvFile(settings));
  if (!authority) {
    throw noLocalStack(
      `No local stack is running: there is no ${file} (\`npm start\` writes it, with the issuer it runs).`,
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

/** A token for a local principal (an app's with `app`), signed with the key file `npm start` made; token-main checks the name and hours. */
export async function mintLocalToken(
  settings: Settings,
  request: { name: string; app: boolean; hours: number },
): Promise<{ token: string; objectId: string; authority: string }> {
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
