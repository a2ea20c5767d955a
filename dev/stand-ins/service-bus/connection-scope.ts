import type { Sender, Session } from "rhea";
import { type EntityPath, formatEntityPath } from "./entity-address";

/** Who a `$cbs` token for an entity was granted to: a SAS key (all rights) or an Entra ID principal. */
export type Grant = { kind: "sas" } | { kind: "principal"; principalId: string };

/**
 * What the stand-in keeps per client connection: the links that carry `$cbs` and `$management`
 * replies (a request names its reply link in `reply_to`), and clean-ups for links that hold
 * message locks. rhea reports no link closes when a session ends or a connection drops, so the
 * scope runs those clean-ups itself.
 */
export class ConnectionScope {
  private readonly replyLinks = new Map<string, Sender>();
  private readonly cleanUps = new Map<Session, Set<() => void>>();
  private readonly grants = new Map<string, Grant>();

  /** Records the latest token put for an entity on this connection (each put replaces the last). */
  grant(entity: EntityPath, grant: Grant): void {
    this.grants.set(entityKey(entity), grant);
  }

  /** The latest grant for an entity, if a token was put for it. */
  grantFor(entity: EntityPath): Grant | undefined {
    return this.grants.get(entityKey(entity));
  }

  /** Registers a link that receives replies, under every address a request may name it by. */
  addReplyLink(sender: Sender, addresses: Array<string | undefined>): void {
    const keys = addresses.filter((address): address is string => address !== undefined);
    for (const key of keys) this.replyLinks.set(key, sender);
    sender.on("sender_close", () => {
      for (const key of keys) if (this.replyLinks.get(key) === sender) this.replyLinks.delete(key);
    });
  }

  replyLink(replyTo: string | undefined): Sender | undefined {
    return replyTo === undefined ? undefined : this.replyLinks.get(replyTo);
  }

  /** Runs `cleanUp` when the link's session or connection goes; returns the deregistration. */
  onGone(session: Session, cleanUp: () => void): () => void {
    let forSession = this.cleanUps.get(session);
    if (forSession === undefined) {
      forSession = new Set();
      this.cleanUps.set(session, forSession);
    }
    forSession.add(cleanUp);
    return () => forSession.delete(cleanUp);
  }

  sessionGone(session: Session): void {
    const forSession = this.cleanUps.get(session);
    this.cleanUps.delete(session);
    for (const cleanUp of forSession ?? []) cleanUp();
  }

  connectionGone(): void {
    for (const session of [...this.cleanUps.keys()]) this.sessionGone(session);
    this.replyLinks.clear();
    this.grants.clear();
  }
}

/** Entity names are case-insensitive. */
function entityKey(entity: EntityPath): string {
  return formatEntityPath(entity).toLowerCase();
}
