/**
 * The service answers an endpoint's secrets masked (`SharedAccessKey=***`, the dead-letter URL's
 * query as `***`). These are the service's own masks, so a provider can tell whether a masked
 * answer still matches the real value it holds, and keep that real value in state rather than the
 * mask. Their modules import only Node's built-ins (test/client/dependency-free.test.ts holds them
 * to that), so this package builds them in without the service's dependencies.
 */
export { maskConnectionString } from "../../src/endpoints/connection-string";
export { maskDeadLetterSecret } from "../../src/endpoints/dead-letter-secret";

/**
 * What to keep for a secret the service shows masked: the known real value when it masks to what
 * the service shows; otherwise what the service shows, so the difference reads as drift and the
 * next update writes the program's value back.
 */
export function keepKnownSecret(
  shown: string | undefined,
  known: string | undefined,
  mask: (text: string) => string,
): string | undefined {
  if (shown === undefined) return undefined;
  return known !== undefined && mask(known) === shown ? known : shown;
}
