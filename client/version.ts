/**
 * The client's version, sent in its User-Agent (`twin-resource-service-client/<version>`). Kept
 * equal to the root package.json's version by test/client/network.client.test.ts: the client is
 * compiled into more than one package, so it does not read a package.json at run time.
 */
export const CLIENT_VERSION = "0.1.0";

export const USER_AGENT_NAME = "twin-resource-service-client";
