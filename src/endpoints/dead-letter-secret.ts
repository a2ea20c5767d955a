import { isIP } from "node:net";
import { type Authority, parseAuthority } from "./host-names";

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

export interface DeadLetterLocation {
  /** The container URL without its query. */
  containerUrl: string;
  container: string;
}

export function deadLetterProblems(text: string): string[] {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return ["must be a URL of the form {storage endpoint}/{container}?{SAS token}"];
  }
  const written = SCHEME_AND_AUTHORITY.exec(text);
  if (written?.[2] === undefined) return ["must be an http or https URL (https://…)"];
  if (written[2].includes("@") || url.username !== "" || url.password !== "") {
    return ["must not carry user information (user:password@): the SAS token is its only credential"];
  }
  if (!parseAuthority(written[2])) {
    return [
      "must name its host plainly (DNS labels of letters, digits and '-', or a port): percent-encoding, non-ASCII characters, trailing dots and numeric forms of IP addresses are refused",
    ];
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
  if (!url.searchParams.get("sig"))
    problems.push("must carry a SAS token with a signature (sig=) in its query");
  return problems;
}

export function deadLetterLocation(text: string): DeadLetterLocation {
  const url = new URL(text);
  const segments = url.pathname.split("/").filter((segment) => segment !== "");
  return { containerUrl: `${url.origin}${url.pathname}`, container: segments[segments.length - 1] ?? "" };
}

/** Scheme and host of a dead-letter URL that deadLetterProblems accepted. */
export function deadLetterEndpoint(
  text: string,
): { scheme: "http" | "https"; authority: Authority } | undefined {
  const written = SCHEME_AND_AUTHORITY.exec(text);
  const authority = written?.[2] === undefined ? undefined : parseAuthority(written[2]);
  return authority && (written?.[1] === "http" || written?.[1] === "https")
    ? { scheme: written[1], authority }
    : undefined;
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
