/**
 * Service Bus stand-in: a test and local-run double for Service Bus topics, not a broker to deploy.
 * It speaks AMQP 1.0 (on rhea) closely enough for the unmodified `@azure/service-bus` SDK, over
 * plain TCP with `UseDevelopmentEmulator=true` in the connection string, or over TLS (AMQPS) with
 * a token credential; the official emulator or a real namespace replaces it by that setting alone.
 *
 * It serves what the service, its tests, the bench and `npm run receive` use: `$cbs` put-token
 * (SAS tokens granted unread; Entra ID tokens verified, and only holders of the sender role may
 * attach a sender), topics and subscriptions made on first use (case-insensitive), single, array
 * and batch sends, peek-lock receiving (complete, abandon) and receiveAndDelete. Locks last until
 * settled; a receiver that goes gives its locked messages back. Everything is in memory. Left out:
 * `$management`, lock expiry, dead-lettering, deferral, queues, sessions, TTL, rules, transactions.
 * It never logs message bodies or keys.
 */
import * as net from "node:net";
import * as tls from "node:tls";
import {
  type AmqpError,
  type Connection,
  type ConnectionOptions,
  type Container,
  create_container,
  type EventContext,
  type link,
  type SenderOptions,
} from "rhea";
import { type CbsState, entityPath, SAS_GRANT, serveCbs, type TokenSettings, tokenChecker } from "./auth";
import { named, Topic, type TopicStats } from "./broker";
import { SubscriptionReceiverLink, serveTopicSender } from "./links";
import { abortConnection } from "./rhea-internals";

export type { SubscriptionStats, TopicStats } from "./broker";

/** The key name and key of the official emulator's connection string; the stand-in checks neither. */
export const DEV_KEY_NAME = "RootManageSharedAccessKey";
export const DEV_KEY = "SAS_KEY_VALUE";
/** Announced on every link the client sends on: what `createMessageBatch` fills to (Standard tier). */
const MAX_MESSAGE_SIZE = 256 * 1024;
/** How long a client gets to answer our AMQP close before its socket is dropped. */
const CLOSE_GRACE_MS = 2_000;

export interface ServiceBusStandInOptions {
  /** On 127.0.0.1; 0 picks a free port. */
  port: number;
  /** Where protocol problems are reported (one line each, never a message body); default silent. */
  log?: (line: string) => void;
  /** A second listener, AMQPS with this certificate and key (PEM), sharing the broker; port 0: a free one. */
  tls?: { port: number; cert: string; key: string };
  /** Take Entra ID tokens (JWTs) on `$cbs`, checked against this key set, and these senders' roles. */
  tokens?: TokenSettings;
}

export interface RunningServiceBus {
  port: number;
  /** The AMQPS listener's port, when it runs. */
  tlsPort: number | undefined;
  /** A connection string for the SDK, with `EntityPath` when given. */
  connectionString(entityPath?: string): string;
  /** How many messages a topic accepted, and what each subscription holds. */
  topicStats(topic: string): TopicStats;
  /** Creates a subscription before any receiver attaches, so it keeps what is sent from now on. */
  ensureSubscription(topic: string, subscription: string): void;
  /** Closes every client connection, stops listening and drops all messages. */
  close(): Promise<void>;
}

export async function startServiceBusStandIn(options: ServiceBusStandInOptions): Promise<RunningServiceBus> {
  const topics = new Map<string, Topic>();
  const topic = (name: string) => named(topics, name, () => new Topic());
  const container = create_container({ id: "service-bus-stand-in" });
  container.sasl_server_mechanisms.enable_anonymous();
  container.sasl_server_mechanisms.enable_plain(() => true);
  routeLinks(container, topic, options.tokens);
  const log = options.log ?? (() => {});
  // Unhandled link or connection errors reach the container; without a listener rhea would throw.
  container.on("error", (error: AmqpError & Error) =>
    log(`AMQP error: ${[error.condition, error.message].filter(Boolean).join(": ")}`),
  );
  container.on("protocol_error", (error: Error) => log(`AMQP protocol error: ${error.message}`));

  const listener = await listen(container, options.port);
  const tlsListener = await (options.tls && listen(container, options.tls.port, options.tls))?.catch(
    async (error: unknown) => {
      await listener.close();
      throw error;
    },
  );
  return {
    port: listener.port,
    tlsPort: tlsListener?.port,
    connectionString: (entity) =>
      `Endpoint=sb://127.0.0.1:${listener.port}/;SharedAccessKeyName=${DEV_KEY_NAME};SharedAccessKey=${DEV_KEY};UseDevelopmentEmulator=true${entity === undefined ? "" : `;EntityPath=${entity}`}`,
    topicStats: (name) => topics.get(name.toLowerCase())?.stats() ?? { accepted: 0, subscriptions: {} },
    ensureSubscription: (name, subscription) => {
      topic(name).subscription(subscription);
    },
    close: async () => {
      await Promise.all([listener.close(), tlsListener?.close()]);
      topics.clear();
    },
  };
}

/** Serves `container` on 127.0.0.1, on plain TCP or, given a certificate, on TLS; both share its broker. */
async function listen(container: Container, port: number, identity?: { cert: string; key: string }) {
  const open = new Map<net.Socket, Connection>();
  const serve = (socket: net.Socket) => {
    // AMQP is chatty (flow, transfer, disposition): without this, Nagle's algorithm and delayed
    // ACKs hold small frames back ~40 ms each, and a credit-1 receiver crawls at ~25 messages/s.
    socket.setNoDelay(true);
    // rhea types create_connection for outgoing connections only; accept() makes this one a server's.
    const connection = container.create_connection({
      receiver_options: { max_message_size: MAX_MESSAGE_SIZE, autoaccept: false },
      // rhea folds `modified` into `released` unless told not to; abandon and defer differ only there.
      sender_options: { treat_modified_as_released: false } as SenderOptions,
    } as ConnectionOptions);
    open.set(socket, connection.accept(socket));
    socket.once("close", () => open.delete(socket));
  };
  const server = identity
    ? tls.createServer({ cert: identity.cert, key: identity.key }).on("secureConnection", serve)
    : net.createServer(serve);
  await new Promise<void>((resolve, reject) =>
    server.once("error", reject).listen(port, "127.0.0.1", resolve),
  );
  return {
    port: (server.address() as net.AddressInfo).port,
    async close() {
      const stopped = new Promise((resolve) => server.close(resolve));
      for (const connection of open.values()) connection.close();
      // A client that answers our close goes at once; the sockets of those that do not, after a grace.
      const grace = setTimeout(() => {
        for (const [socket, connection] of open) abortConnection(connection, socket);
      }, CLOSE_GRACE_MS);
      await stopped;
      clearTimeout(grace);
    },
  };
}

/** What a link address names: `$cbs`, a topic, or `<topic>/Subscriptions/<name>`; else undefined. */
export function parseLinkAddress(
  address: string | undefined,
): "$cbs" | { topic: string; subscription?: string } | undefined {
  const path = entityPath(address ?? "");
  if (path.toLowerCase() === "$cbs") return "$cbs";
  // Topic names may hold `/`; `$` segments name what is not served ($management, $DeadLetterQueue).
  const segments = path.split("/");
  if (segments.some((segment) => segment === "" || segment.startsWith("$"))) return undefined;
  const marker = segments.findIndex((segment) => segment.toLowerCase() === "subscriptions");
  if (marker === -1) return { topic: path };
  if (marker === 0 || marker !== segments.length - 2) return undefined;
  return { topic: segments.slice(0, marker).join("/"), subscription: segments[marker + 1] as string };
}

/**
 * Decides what each link a client attaches is for, by its address: `$cbs`, a topic (the client
 * sends) or a subscription (the client receives). Anything else is refused with an AMQP error the
 * SDK turns into a readable one.
 */
function routeLinks(container: Container, topic: (name: string) => Topic, tokens: TokenSettings | undefined) {
  const checkToken = tokens && tokenChecker(tokens);
  // Principal ids holding "Azure Service Bus Data Sender" on the namespace.
  const senders = new Set((tokens?.senders ?? []).map((id) => id.trim().toLowerCase()));
  type State = CbsState & { receivers: Set<SubscriptionReceiverLink> };
  const states = new WeakMap<Connection, State>();
  const stateOf = (connection: Connection): State => {
    if (!states.has(connection))
      states.set(connection, { replyLinks: new Map(), grants: new Map(), receivers: new Set() });
    return states.get(connection) as State;
  };

  // The client's sender: the stand-in receives on it.
  container.on("receiver_open", ({ receiver, connection }: EventContext) => {
    if (receiver === undefined) return;
    const target = parseLinkAddress(receiver.target?.address);
    const state = stateOf(connection);
    if (target === "$cbs") return serveCbs(accept(receiver), state, checkToken);
    if (target === undefined || target.subscription !== undefined) {
      return refuse(receiver, `The stand-in takes sends to topics only, not to ${receiver.target?.address}.`);
    }
    const grant = state.grants.get(target.topic.toLowerCase());
    if (grant !== undefined && grant !== SAS_GRANT && !senders.has(grant)) {
      // As Service Bus refuses a principal without the Send right: the SDK surfaces this at once
      // as a ServiceBusError with code UnauthorizedAccess.
      const open = (connection as unknown as { remote?: { open?: { hostname?: string } } }).remote?.open;
      const resource = `sb://${open?.hostname ?? "localhost"}/${target.topic}`;
      const why = `Unauthorized access. 'Send' claim(s) are required to perform this operation. Resource: '${resource}'.`;
      return refuse(receiver, why, "amqp:unauthorized-access");
    }
    serveTopicSender(accept(receiver), topic(target.topic));
  });

  // The client's receiver: the stand-in sends on it.
  container.on("sender_open", ({ sender, connection }: EventContext) => {
    if (sender === undefined) return;
    const source = parseLinkAddress(sender.source?.address);
    const state = stateOf(connection);
    if (source === "$cbs") {
      // `$cbs` requests name this link in reply_to.
      state.replyLinks.set(sender.name, accept(sender));
      sender.on("sender_close", () => state.replyLinks.delete(sender.name));
    } else if (source?.subscription === undefined) {
      const served = "The stand-in serves receiving from <topic>/Subscriptions/<name> only";
      refuse(sender, `${served}, not from ${sender.source?.address}.`);
    } else {
      const subscription = topic(source.topic).subscription(source.subscription);
      const link = new SubscriptionReceiverLink(accept(sender), subscription);
      state.receivers.add(link);
      sender.on("sender_close", () => state.receivers.delete(link));
    }
  });

  // rhea reports no link closes when a session ends or a connection goes: give their locks back here.
  const giveBack = ({ connection, session }: EventContext, all: boolean) => {
    const receivers = states.get(connection)?.receivers ?? new Set();
    for (const link of receivers) {
      if (!all && link.link.session !== session) continue;
      link.close();
      receivers.delete(link);
    }
  };
  container.on("session_close", (context: EventContext) => giveBack(context, false));
  container.on("connection_close", (context: EventContext) => giveBack(context, true));
  container.on("disconnected", (context: EventContext) => giveBack(context, true));
}

/** Accepts the link as asked: the attach reply names the same source and target addresses. */
function accept<T extends link>(attached: T): T {
  const source = attached.source?.address;
  const target = attached.target?.address;
  if (source !== undefined) attached.set_source({ address: source });
  if (target !== undefined) attached.set_target({ address: target });
  return attached;
}

/** Refuses an attach: no terminus in the reply, then a detach carrying the reason. */
function refuse(attached: link, description: string, condition = "amqp:not-found"): void {
  attached.close({ condition, description });
}
