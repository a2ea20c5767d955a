import type { TokenCredential } from "@azure/core-auth";
import {
  bearerTokenAuthenticationPolicy,
  type PipelinePolicy,
  type PipelineRequest,
} from "@azure/core-rest-pipeline";
import type { AzureLogger } from "@azure/logger";
import { isLoopbackUrl } from "./loopback";

export const LOOPBACK_BEARER_POLICY_NAME = "twinServiceBearerTokenPolicy";

export interface LoopbackBearerOptions {
  credential: TokenCredential;
  scopes: string[];
  /** False for the calls that go without credentials (`/health`): they get no token. */
  needsToken: (request: PipelineRequest) => boolean;
  logger?: AzureLogger;
}

/** Why a token is not sent: thrown before the credential is asked or anything is sent. */
export function plainHttpRefusal(url: URL): TypeError {
  return new TypeError(
    `A token is sent over plain http only to loopback (localhost, 127.0.0.0/8, [::1]), not to ${url.host}: use https.`,
  );
}

/**
 * The Azure SDK's bearer token policy (token caching and refresh before expiry, Continuous Access
 * Evaluation challenges), which throws for any URL that is not https. The local stack serves plain
 * http on loopback, where nothing travels off the machine: for such a URL (and only such a URL) the
 * policy is shown an https spelling of it for its check, and the request goes out unchanged. Any
 * other non-https URL is refused here, before the credential is asked for a token.
 */
export function loopbackBearerPolicy(options: LoopbackBearerOptions): PipelinePolicy {
  const bearer = bearerTokenAuthenticationPolicy({
    credential: options.credential,
    scopes: options.scopes,
    ...(options.logger && { logger: options.logger }),
  });
  return {
    name: LOOPBACK_BEARER_POLICY_NAME,
    async sendRequest(request, next) {
      if (!options.needsToken(request)) return next(request);
      const url = new URL(request.url);
      if (url.protocol === "https:") return bearer.sendRequest(request, next);
      if (url.protocol !== "http:" || !isLoopbackUrl(url)) throw plainHttpRefusal(url);
      const original = request.url;
      const shown = new URL(url.href);
      shown.protocol = "https:";
      request.url = shown.href;
      try {
        return await bearer.sendRequest(request, (sent) => {
          sent.url = original;
          return next(sent);
        });
      } finally {
        request.url = original;
      }
    },
  };
}
