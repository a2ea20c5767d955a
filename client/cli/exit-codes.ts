/** What `twin`'s exit code says went wrong. */
export const EXIT = {
  ok: 0,
  /** The service refused the call (4xx other than 401 and 404, 5xx) or could not be reached. */
  service: 1,
  /** An unknown command or option, a missing argument, an unreadable file. */
  usage: 2,
  /** No credential, or the service answered 401. */
  authentication: 3,
  /** The service answered 404 (or there was nothing to delete). */
  notFound: 4,
} as const;

export const EXIT_CODES_HELP = `Exit codes:
  0  done
  1  the service refused the call (4xx, 5xx) or could not be reached
  2  usage: an unknown command or option, a missing argument, a file that is not JSON
  3  authentication: no credential could be had, or the service answered 401
  4  not found: the service answered 404 (or there was nothing to delete)`;

/** A refusal `twin` finds itself (not the service's): its message, exit code, and code for `--output json`. */
export class CliFailure extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    readonly code: string,
  ) {
    super(message);
    this.name = "CliFailure";
  }
}
