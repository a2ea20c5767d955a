import { isIP } from "node:net";

/**
 * The dead-letter secret: `{storage endpoint}/{container}?{SAS token}`. Path-style URLs of a local
 * emulator (`http://127.0.0.1:10000/devstoreaccount1/dead?…`) carry the account as a first segment.
 * Problems never quote the URL: its query is a credential.
 */
const CONTAINER_NAME = /^(?=.{3,63}$)[a-z0-9]+(?:-[a-z0-9]+)*$/;

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
  const problems: string[] = [];
  if (url.protocol !== "https:" && url.protocol !== "http:") problems.push("must be an http or https URL");
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

/** The URL with its whole query string (the SAS token) replaced by ***. */
export function maskDeadLetterSecret(text: string): string {
  const question = text.indexOf("?");
  return question === -1 ? text : `${text.slice(0, question)}?***`;
}
