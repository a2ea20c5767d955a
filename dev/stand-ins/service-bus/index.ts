/**
 * Service Bus stand-in: a TEST AND LOCAL-RUN DOUBLE for Azure Service Bus topics and subscriptions,
 * not a broker to deploy. It speaks AMQP 1.0 (on rhea) closely enough that the unmodified
 * `@azure/service-bus` SDK works against it with a connection string such as
 *
 *   Endpoint=sb://127.0.0.1:5672/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=SAS_KEY_VALUE;UseDevelopmentEmulator=true
 *
 * (`UseDevelopmentEmulator=true` makes the SDK use plain TCP, no TLS, on the endpoint's port).
 * The official Service Bus emulator or a real namespace replaces it by changing that connection
 * string and nothing else.
 *
 * What it does, which is what the service, its tests, the bench and `npm run receive` use: SASL
 * ANONYMOUS/PLAIN; plain AMQP and, given a certificate, AMQPS on a second port; `$cbs` put-token
 * (every SAS token is granted; Entra ID tokens are verified against the managed-identity
 * stand-in's key set, and only principals holding the sender role may attach a sender to a
 * topic); topics and subscriptions made on first use (`<topic>/Subscriptions/<name>`,
 * case-insensitive); single, array and batch sends; peek-lock receive with link credit and drain,
 * completed or abandoned, and receiveAndDelete (deliveries pre-settled, each message removed as it
 * is sent). Locks last until settled: a receiver that closes or drops gives its locked messages
 * back at once. A topic without subscriptions counts what it accepts (`topicStats`) and keeps
 * nothing. What it leaves out: `$management` (lock renewal, peek, settling by lock token,
 * scheduling), lock expiry, max delivery count, dead-letter queues (dead-lettering and deferral
 * are refused), queues as entities, sessions, TTL, duplicate detection, rules and filters,
 * transactions, size checks (the SDK's own), persistence (everything is in memory). It never logs
 * message bodies or keys.
 */
import {
  type AmqpError,
  type Connection,
  type Container,
  create_container,
  type EventContext,
  type link,
  type SenderOptions,
} from "rhea";
import {
  type CbsState,
  type CheckToken,
  entityPath,
  SAS_GRANT,
  serveCbs,
  type TokenSettings,
  tokenChecker,
} from "./auth";
import { named, Topic, type TopicStats } from "./broker";
import { SubscriptionReceiverLink, serveTopicSender } from "./links";
import { listenForAmqp, type TlsIdentity } from "./listener";

export type { SubscriptionStats, TopicStats } from "./broker";

/** The key name and key of the official emulator's connection string; the stand-in checks neither. */
export const DEV_KEY_NAME = "RootManageSharedAccessKey";
export const DEV_KEY = "SAS_KEY_VALUE";
/** Announced on every link the client sends on: what `createMessageBatch` fills to (Standard tier). */
const MAX_MESSAGE_SIZE = 256 * 1024;

export interface ServiceBusStandInOptions {
  /** On 127.0.0.1; 0 picks a free port. */
  port: number;
  /** Where protocol problems are reported (one line each, never a message body); default silent. */
  log?: (line: string) => void;
  /**
   * A second listener with TLS (AMQPS) on this port (0: a free one), sharing the broker: what a
   * client with a token credential and a namespace host (`localhost:{port}`) connects to.
   */
  tls?: TlsIdentity & { port: number };
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
  const senders = new Set((options.tokens?.senders ?? []).map((id) => id.trim().toLowerCase()));
  routeLinks(container, topic, options.tokens && tokenChecker(options.tokens), senders);
  const log = options.log ?? (() => {});
  // Unhandled link or connection errors reach the container; without a listener rhea would throw.
  container.on("error", (error: AmqpError & Error) =>
    log(`AMQP error: ${[error.condition, error.message].filter(Boolean).join(": ")}`),
  );
  container.on("protocol_error", (error: Error) => log(`AMQP protocol error: ${error.message}`));

  const connectionOptions = {
    receiver_options: { max_message_size: MAX_MESSAGE_SIZE, autoaccept: false },
    // rhea folds `modified` into `released` unless told not to; abandon and defer differ only there.
    sender_options: { treat_modified_as_released: false } as SenderOptions,
  };
  const listener = await listenForAmqp(container, connectionOptions, options.port);
  const tls = options.tls;
  const tlsListener = await (tls && listenForAmqp(container, connectionOptions, tls.port, tls))?.catch(
    async (error: unknown) => {
      await listener.close();
      throw error;
    },
  );
  return {
    port: listener.port,
    tlsPort: tlsListener?.port,
    connectionString: (entity) =>
      [
        `Endpoint=sb://127.0.0.1:${listener.port}/`,
        `SharedAccessKeyName=${DEV_KEY_NAME}`,
        `SharedAccessKey=${DEV_KEY}`,
        "UseDevelopmentEmulator=true",
        ...(entity === undefined ? [] : [`EntityPath=${entity}`]),
      ].join(";"),
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
 * SDK turns into a readable one. `senders`: principal ids with Azure Service Bus Data Sender.
 */
function routeLinks(
  container: Container,
  topic: (name: string) => Topic,
  checkToken: CheckToken | undefined,
  senders: ReadonlySet<string>,
): void {
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
      const link = new SubscriptionReceiverLink(
        accept(sender),
        topic(source.topic).subscription(source.subscription),
      );
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
