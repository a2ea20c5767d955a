import { readFileSync } from "node:fs";
import type { TokenCredential } from "@azure/core-auth";
import { isLoopbackUrl } from "../loopback";
import { type OptionValues, stringOption, UsageError } from "./args";
import { isCredentialFailure } from "./credentials";
import { CliFailure, EXIT } from "./exit-codes";
import { requireLocalEnv } from "./local-env";

/**
 * How `twin` reaches Azure Storage with the operator's own access (dead letters live in the
 * endpoint owner's account, the poison queue in the service's): a SAS URL as given, or a plain
 * https URL with DefaultAzureCredential and the operator's data role; `--local`, the stack's SAS
 * URLs from .local/local.env. A SAS's query is a secret: it is never printed (`?***`).
 */

/** A storage URL, how to sign in to it, and how to name it in messages. */
export interface StorageAccess {
  /** The URL as the SDK gets it: with its SAS query, when it has one. */
  url: string;
  /** The URL as messages show it: the query, if any, as `?***`. */
  shown: string;
  /** undefined: the URL carries a SAS. */
  credential: TokenCredential | undefined;
  /** The SDK's pipeline options: the local certificate for the stack's HTTPS blob service. */
  pipeline: Record<string, unknown>;
  /** Whether it is the local stack's (a refused connection then means the stack is down). */
  local: boolean;
}

/**
 * Each storage request of `twin` and its retry: a deadline of its own (the SDKs set none, and a
 * store that stops answering would hold the command for as long as the connection stays open).
 */
export const STORAGE_RETRY = { maxTries: 2, tryTimeoutInMs: 30_000 } as const;

/** A storage call refused or failed: what happened, with the exit code it answers. */
export class StorageFailure extends CliFailure {
  override name = "StorageFailure";
}

/** A URL with its query (a SAS) hidden. */
export function shownUrl(url: string): string {
  const parsed = new URL(url);
  const query = parsed.search === "" ? "" : "?***";
  parsed.search = "";
  return `${parsed.href}${query}`;
}

/** Every SAS signature in a text hidden: the last guard on what `twin` writes. */
export function withoutSignatures(text: string): string {
  return text.replace(/([?&]sig=)[^&\s"']+/gi, "$1***");
}

/** What of a SAS URL must never be printed: its query, raw and decoded, and its signature. */
export function urlSecrets(url: string): string[] {
  // Not a URL: all after its `?` is taken for a SAS, all the same.
  const parsed = URL.canParse(url) ? new URL(url) : new URL(`https://not-a-url/?${url.split("?")[1] ?? ""}`);
  const signature = parsed.searchParams.get("sig");
  const query = parsed.search.slice(1);
  return [query, safeDecode(query), ...(signature ? [signature, encodeURIComponent(signature)] : [])].filter(
    (secret) => secret.length > 0,
  );
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** DefaultAzureCredential, loaded only when it is used (a SAS needs none of @azure/identity). */
async function defaultAzureCredential(): Promise<TokenCredential> {
  const { DefaultAzureCredential } = await import("@azure/identity");
  return new DefaultAzureCredential();
}

/** A URL given on the command line: https (http on loopback), no user name or password. */
export function parseStorageUrl(raw: string, option: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // The text may be a SAS URL with a typo: its query is still not printed.
    throw new UsageError(`${option} is not a URL: ${withoutSignatures(raw.split("?")[0] ?? "")}`);
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopbackUrl(url))) {
    throw new UsageError(`${option} must be an https URL (or http on loopback): ${shownUrl(url.href)}`);
  }
  if (url.username !== "" || url.password !== "") {
    throw new UsageError(`${option} must not hold a user name or password.`);
  }
  return url;
}

/** Access to a URL given by the operator: its SAS, else DefaultAzureCredential. */
export async function givenAccess(raw: string, option: string): Promise<StorageAccess> {
  const url = parseStorageUrl(raw, option);
  const sas = url.searchParams.has("sig");
  if (!sas && url.protocol !== "https:") {
    throw new UsageError(`${option}: a token is sent over https only; give a SAS URL for http.`);
  }
  return {
    url: url.href,
    shown: shownUrl(url.href),
    credential: sas ? undefined : await defaultAzureCredential(),
    pipeline: {},
    local: false,
  };
}

/** Access to one of the local stack's SAS URLs (`name` in .local/local.env). */
export function localAccess(values: OptionValues, cwd: string, name: string, what: string): StorageAccess {
  const envFile = stringOption(values, "local-env");
  const { file, values: local } = requireLocalEnv(cwd, envFile);
  const raw = local[name];
  if (raw === undefined || raw === "") {
    throw new UsageError(
      `--local: ${file} has no ${name}: the stack runs without Azurite (its storage is configured), so give ${what}.`,
    );
  }
  const url = parseStorageUrl(raw, name);
  const certFile = local.STACK_TLS_CERT_FILE;
  // The stack's HTTPS blob service presents the local certificate, which Node does not trust by itself.
  const pipeline =
    url.protocol === "https:" && certFile ? { tlsOptions: { ca: readFileSync(certFile, "utf8") } } : {};
  return { url: url.href, shown: shownUrl(url.href), credential: undefined, pipeline, local: true };
}

function statusOf(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === "number" ? status : undefined;
}

function codeOf(error: unknown): string | undefined {
  const details = (error as { details?: { errorCode?: unknown } } | null)?.details;
  const code = details?.errorCode ?? (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * A storage call's failure as `twin` reports it: 403 for a refused signature or token
 * (authentication, exit 3) or a missing permission (exit 1, naming what is needed), 404 (exit 4),
 * anything else exit 1. A credential that could not be had is passed on as it is (exit 3).
 */
export function storageFailure(
  error: unknown,
  action: string,
  access: StorageAccess,
  needs: string,
): unknown {
  if (isCredentialFailure(error) || error instanceof UsageError) return error;
  const status = statusOf(error);
  const code = codeOf(error);
  const firstLine = withoutSignatures((error as Error)?.message?.split("\n")[0] ?? String(error));
  const what = `${action} ${access.shown}`;
  if (status === undefined) {
    const hint = access.local ? " Is the local stack running? Start it with `npm start`." : "";
    return new StorageFailure(
      `could not ${what}: ${code ? `${code} ` : ""}${firstLine}.${hint}`,
      EXIT.service,
      code ?? "RequestFailed",
    );
  }
  const answer = `${status}${code ? ` ${code}` : ""}`;
  if (status === 404)
    return new StorageFailure(`cannot ${what}: ${answer}`, EXIT.notFound, code ?? "NotFound");
  // Azure answers AuthenticationFailed for a signature it refuses; Azurite AuthorizationFailure, with Azure's message.
  if (status === 403 && (code === "AuthenticationFailed" || /failed to authenticate/i.test(firstLine))) {
    return new StorageFailure(
      `cannot ${what}: ${answer}: the storage account refused the SAS or the token (expired, revoked, or of another account)`,
      EXIT.authentication,
      code ?? "AuthenticationFailed",
    );
  }
  if (status === 403) {
    return new StorageFailure(
      `cannot ${what}: ${answer}: it needs ${needs}`,
      EXIT.service,
      code ?? "Forbidden",
    );
  }
  return new StorageFailure(`cannot ${what}: ${answer}: ${firstLine}`, EXIT.service, code ?? "RequestFailed");
}
