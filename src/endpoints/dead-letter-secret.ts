import { isIP } from "node:net";
import { type Authority, parseAuthority } from "./host-names";
import { sasTokenProblems } from "./sas-token";

/**
 * The dead-letter secret: `{storage endpoint}/{container}?{SAS token}`. Path-style URLs of a local
 * emulator (`http://127.0.0.1:10000/devstoreaccount1/dead?…`) carry the account as a first segment.
 * Problems never quote the URL: its query is a credential. The SAS token is the only credential
 * accepted: user information (`user:password@`) is refused, and masked should an older document
 * hold it.
 */
const CONTAINER_NAME = /^(?=.{3,63}$)[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** Scheme and authority as written; WHATWG parsing would also take `https:host` or `https:\\host`. */
const SCHEME_AND_AUTHORITY = /^(https?):\/\/([^/?#]*)/;

function isPathStyleHost(hostname: string): boolean {
  const bare = hostname.replace(/^\[|\]$/g, "");
  return isIP(bare) !== 0 || bare === "localhost";
}

/**
 * A dead-letter URL that parsed: what the service checks and shows is read from here, never from
 * the text again.
 */
export interface DeadLetterSecret {
  /** As sent: what is sealed, and what the blob client reads. */
  text: string;
  scheme: "http" | "https";
  /** The host and port, in the only spelling accepted. */
  authority: Authority;
  container: string;
  /** What responses show: the query (the SAS token) replaced by ***. */
  masked: string;
}

export type DeadLetterParseResult = { ok: true; value: DeadLetterSecret } | { ok: false; problems: string[] };

export interface DeadLetterParseOptions {
  /**
   * Check the SAS token too (sas-token.ts): when an endpoint is written. Delivery re-checks only
   * where a stored URL points, so a document written before these rules keeps working as it did.
   */
  checkToken?: boolean;
  now?: Date;
}

export function parseDeadLetterSecret(
  text: string,
  { checkToken = true, now = new Date() }: DeadLetterParseOptions = {},
): DeadLetterParseResult {
  const read = readContainerUrl(text, "{storage endpoint}/{container}?{SAS token}");
  if (!read.ok) return read;
  const { url, problems, value } = read;
  if (!url.searchParams.get("sig"))
    problems.push("must carry a SAS token with a signature (sig=) in its query");
  else if (checkToken) problems.push(...sasTokenProblems(url.searchParams, now));
  if (problems.length > 0 || value === undefined) return { ok: false, problems };
  return { ok: true, value: { text, ...value, masked: maskDeadLetterSecret(text) } };
}

/** A container's URL that parsed: where the service writes, read from here and never from the text again. */
export type ContainerUrl = Omit<DeadLetterSecret, "masked">;

/**
 * An identity-based endpoint's `deadLetterUri`: `https://{account host}/{container}` (path-style
 * `/{account}/{container}` for a local emulator), with no query: the endpoint's managed identity
 * is its credential, so a SAS token there would be a secret shown back in clear.
 */
export function parseDeadLetterUri(
  text: string,
): { ok: true; value: ContainerUrl } | { ok: false; problems: string[] } {
  const read = readContainerUrl(text, "{storage endpoint}/{container}");
  if (!read.ok) return read;
  const { url, problems, value } = read;
  if (text.includes("?") || text.includes("#") || url.search !== "" || url.hash !== "")
    problems.push(
      "must carry no query or fragment: no SAS token, as the endpoint's identity is its credential",
    );
  if (problems.length > 0 || value === undefined) return { ok: false, problems };
  return { ok: true, value: { text, ...value } };
}

/**
 * The scheme, host and container of a container URL, and the problems of its form so far (the
 * query is the caller's to judge). Problems never quote the URL.
 */
function readContainerUrl(
  text: string,
  form: string,
):
  | { ok: true; url: URL; problems: string[]; value?: Omit<ContainerUrl, "text"> }
  | { ok: false; problems: string[] } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, problems: [`must be a URL of the form ${form}`] };
  }
  const written = SCHEME_AND_AUTHORITY.exec(text);
  const scheme = written?.[1];
  if (written?.[2] === undefined || (scheme !== "http" && scheme !== "https"))
    return { ok: false, problems: ["must be an http or https URL (https://…)"] };
  if (written[2].includes("@") || url.username !== "" || url.password !== "") {
    return {
      ok: false,
      problems: ["must not carry user information (user:password@): it would be a credential in clear"],
    };
  }
  const authority = parseAuthority(written[2]);
  if (!authority) {
    return {
      ok: false,
      problems: [
        "must name its host plainly (DNS labels of letters, digits and '-', or a port): percent-encoding, non-ASCII characters, trailing dots and numeric forms of IP addresses are refused",
      ],
    };
  }
  const problems: string[] = [];
  const segments = url.pathname.split("/").filter((segment) => segment !== "");
  const expected = isPathStyleHost(url.hostname) ? 2 : 1;
  const container = segments[expected - 1];
  if (segments.length !== expected || container === undefined) {
    problems.push(
      expected === 2
        ? "must name the account and then the container in the path, as /{account}/{container}"
        : "must name exactly one container in the path",
    );
  } else if (!CONTAINER_NAME.test(container)) {
    problems.push("must name a container of 3 to 63 lower-case letters, digits and single hyphens");
  }
  return {
    ok: true,
    url,
    problems,
    ...(container !== undefined && { value: { scheme, authority, container } }),
  };
}

/** What is wrong with the form of a dead-letter URL (not where it points: see endpoint-allow-list.ts). */
export function deadLetterProblems(text: string): string[] {
  const parsed = parseDeadLetterSecret(text);
  return parsed.ok ? [] : parsed.problems;
}

/**
 * The URL with its whole query string (the SAS token) and any fragment replaced by ***, and any
 * user information too: the mask is total, for documents stored before user information was refused.
 */
export function maskDeadLetterSecret(text: string): string {
  const end = text.search(/[?#]/);
  const base = (end === -1 ? text : text.slice(0, end)).replace(
    /^([A-Za-z][A-Za-z0-9+.-]*:[/\\]*)[^/\\]*@/,
    "$1***@",
  );
  return end === -1 ? base : `${base}?***`;
}
