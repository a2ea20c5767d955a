import { randomUUID } from "node:crypto";
import type { AmqpError, Connection, Container, EventContext, link, Receiver, Sender } from "rhea";
import { type CheckToken, serveCbs } from "./cbs";
import { ConnectionScope } from "./connection-scope";
import { type EntityPath, formatEntityPath, parseLinkAddress } from "./entity-address";
import { serveManagement } from "./management";
import type { MessageQueue } from "./message-queue";
import { SubscriptionReceiverLink } from "./receiver-link";
import { serveTopicSender } from "./sender-link";
import type { TopicRegistry } from "./topic-registry";

export interface RouterSettings {
  maxMessageSize: number;
  log: (line: string) => void;
  /** How `$cbs` checks JWTs; absent: only SAS tokens are taken. */
  checkToken?: CheckToken;
  /** Principal ids that may send (Azure Service Bus Data Sender on the namespace). */
  senders: ReadonlySet<string>;
}

const SESSION_FILTER = "com.microsoft:session-filter";

/**
 * Decides what each link a client attaches is for, by its address, and hands it to the code that
 * serves it: `$cbs`, a `$management` node, a topic (client sends) or a subscription (client
 * receives). Anything else is refused with an AMQP error the SDK turns into a readable one.
 */
export function routeLinks(container: Container, registry: TopicRegistry, settings: RouterSettings): void {
  const scopes = new WeakMap<Connection, ConnectionScope>();
  const scopeOf = (connection: Connection): ConnectionScope => {
    let scope = scopes.get(connection);
    if (scope === undefined) {
      scope = new ConnectionScope();
      scopes.set(connection, scope);
    }
    return scope;
  };
  const queueOf = (entity: EntityPath): MessageQueue | undefined =>
    entity.kind === "subscription"
      ? registry.queue(entity.topic, entity.subscription, entity.deadLetter)
      : undefined;

  // The client's sender: the stand-in receives on it.
  container.on("receiver_open", (context: EventContext) => {
    const receiver = context.receiver;
    if (receiver === undefined) return;
    const address = receiver.target?.address;
    const target = parseLinkAddress(address);
    const scope = scopeOf(context.connection);
    if (target === undefined) {
      return refuse(receiver, "amqp:not-found", `The stand-in has no entity at ${address}.`);
    }
    if (target.kind === "subscription") {
      return refuse(
        receiver,
        "amqp:not-allowed",
        `Cannot send to ${formatEntityPath(target)}; send to its topic.`,
      );
    }
    const grant = target.kind === "topic" ? scope.grantFor(target) : undefined;
    if (target.kind === "topic" && grant?.kind === "principal" && !settings.senders.has(grant.principalId)) {
      // As Service Bus refuses a principal without the Send right: the SDK surfaces this at once
      // as a ServiceBusError with code UnauthorizedAccess, without retrying.
      return refuse(
        receiver,
        "amqp:unauthorized-access",
        `Unauthorized access. 'Send' claim(s) are required to perform this operation. Resource: '${namespaceOf(context.connection)}${target.topic}'.`,
      );
    }
    echoTermini(receiver);
    if (target.kind === "cbs") return serveCbs(receiver, scope, settings.checkToken);
    if (target.kind === "management") return serveManagement(receiver, scope, queueOf(target.entity));
    serveTopicSender(receiver, registry.topic(target.topic), settings.maxMessageSize);
  });

  // The client's receiver: the stand-in sends on it.
  container.on("sender_open", (context: EventContext) => {
    const sender = context.sender;
    if (sender === undefined) return;
    const scope = scopeOf(context.connection);
    if (sender.source?.dynamic) {
      // A reply link that asks the node to name it: any unique address will do.
      const address = `$reply/${randomUUID()}`;
      echoTermini(sender);
      sender.set_source({ address, dynamic: true });
      scope.addReplyLink(sender, [sender.name, address, sender.target?.address]);
      return;
    }
    const address = sender.source?.address;
    const source = parseLinkAddress(address);
    if (source === undefined) {
      return refuse(sender, "amqp:not-found", `The stand-in has no entity at ${address}.`);
    }
    if (source.kind === "topic") {
      return refuse(
        sender,
        "amqp:not-allowed",
        `The stand-in serves topics only: receive from ${source.topic}/Subscriptions/<name>.`,
      );
    }
    if (source.kind === "subscription" && sender.source?.filter?.[SESSION_FILTER] !== undefined) {
      return refuse(sender, "amqp:not-implemented", "The Service Bus stand-in does not support sessions.");
    }
    echoTermini(sender);
    if (source.kind === "cbs" || source.kind === "management") {
      // A request-response reply link: requests name it in reply_to by link name or target address.
      scope.addReplyLink(sender, [sender.name, sender.target?.address]);
      return;
    }
    const receiverLink = new SubscriptionReceiverLink(
      sender,
      registry.queue(source.topic, source.subscription, source.deadLetter),
    );
    const forget = scope.onGone(sender.session, () => receiverLink.close());
    sender.on("sender_close", forget);
  });

  // rhea reports no link closes when a session ends or a connection goes: release their locks here.
  container.on("session_close", (context: EventContext) => {
    if (context.session) scopeOf(context.connection).sessionGone(context.session);
  });
  container.on("connection_close", (context: EventContext) => scopeOf(context.connection).connectionGone());
  container.on("disconnected", (context: EventContext) => scopeOf(context.connection).connectionGone());
  // Unhandled link or connection errors reach the container; without a listener rhea would throw.
  container.on("error", (error: AmqpError & Error) =>
    settings.log(`AMQP error: ${[error.condition, error.message].filter(Boolean).join(": ")}`),
  );
  container.on("protocol_error", (error: Error) => settings.log(`AMQP protocol error: ${error.message}`));
}

/** The namespace as the client named it in its open frame (`sb://host/`), for messages. */
function namespaceOf(connection: Connection): string {
  const remote = (connection as unknown as { remote?: { open?: { hostname?: string } } }).remote;
  return `sb://${remote?.open?.hostname ?? "localhost"}/`;
}

/** Accepts the link as asked: the attach reply names the same source and target addresses. */
function echoTermini(attached: Sender | Receiver): void {
  const source = attached.source?.address;
  const target = attached.target?.address;
  if (source !== undefined) attached.set_source({ address: source });
  if (target !== undefined) attached.set_target({ address: target });
}

/** Refuses an attach: no terminus in the reply, then a detach carrying the reason. */
function refuse(attached: link, condition: string, description: string): void {
  attached.close({ condition, description });
}
