/**
 * What a link address names. Service Bus entity names are case-insensitive and may contain `/`;
 * a subscription is `<topic>/Subscriptions/<name>`, its dead-letter queue adds `/$DeadLetterQueue`,
 * and any entity's management node adds `/$management`. Addresses may carry an `sb://host/` prefix.
 */
export type EntityPath =
  | { kind: "topic"; topic: string }
  | { kind: "subscription"; topic: string; subscription: string; deadLetter: boolean };

export type LinkAddress = { kind: "cbs" } | { kind: "management"; entity: EntityPath } | EntityPath;

export function parseLinkAddress(address: string | undefined): LinkAddress | undefined {
  if (address === undefined) return undefined;
  const path = address.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*\//i, "");
  if (path.toLowerCase() === "$cbs") return { kind: "cbs" };
  const segments = path.split("/");
  if (segments[segments.length - 1]?.toLowerCase() === "$management") {
    const entity = parseEntityPath(segments.slice(0, -1));
    return entity && { kind: "management", entity };
  }
  return parseEntityPath(segments);
}

function parseEntityPath(segments: string[]): EntityPath | undefined {
  if (segments.some((segment) => segment === "")) return undefined;
  const marker = segments.findIndex((segment) => segment.toLowerCase() === "subscriptions");
  if (marker === -1) {
    return segments.some((segment) => segment.startsWith("$"))
      ? undefined
      : { kind: "topic", topic: segments.join("/") };
  }
  const topic = segments.slice(0, marker).join("/");
  const [subscription, subQueue, ...rest] = segments.slice(marker + 1);
  if (topic === "" || subscription === undefined || rest.length > 0) return undefined;
  if (subQueue !== undefined && subQueue.toLowerCase() !== "$deadletterqueue") return undefined;
  return { kind: "subscription", topic, subscription, deadLetter: subQueue !== undefined };
}

/** The entity path as Service Bus spells it, for messages and stats. */
export function formatEntityPath(path: EntityPath): string {
  if (path.kind === "topic") return path.topic;
  const base = `${path.topic}/Subscriptions/${path.subscription}`;
  return path.deadLetter ? `${base}/$DeadLetterQueue` : base;
}
