/**
 * The service answers an endpoint's secrets masked (`SharedAccessKey=***`, the dead-letter URL's
 * query as `***`). These are the same masks, so a provider can tell whether a masked answer still
 * matches the real value it holds, and keep that real value in state rather than the mask.
 */
const MASKED = "***";

export function maskConnectionString(text: string): string {
  return text.replace(/(^|;)(\s*SharedAccessKey\s*=)[^;]*/gi, `$1$2${MASKED}`);
}

export function maskDeadLetterSecret(text: string): string {
  const question = text.indexOf("?");
  return question === -1 ? text : `${text.slice(0, question)}?${MASKED}`;
}

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
