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
 * What it does: SASL ANONYMOUS/PLAIN; plain AMQP and, given a certificate, AMQPS on a second
 * port; `$cbs` put-token (every SAS token is granted; Entra ID tokens are verified against the
 * managed-identity stand-in's key set, and only principals holding the sender role may attach a
 * sender to a topic); topics and
 * subscriptions created on first use (`<topic>/Subscriptions/<name>`, case-insensitive); single,
 * array and batch sends; peek-lock receive with link credit and drain, and receiveAndDelete
 * (deliveries pre-settled, each message removed as it is sent); complete, abandon,
 * dead-letter, lock expiry and max delivery count; `$management` renew-lock, update-disposition
 * and peek. Two deliberate differences: a receiver that closes or drops returns its locked
 * messages at once (Service Bus waits for the locks to expire), and a topic without
 * subscriptions counts what it accepts (`topicStats`) instead of keeping it. What it leaves out:
 * queues as entities, sessions, deferral, scheduling, TTL expiry, duplicate detection, rules and
 * filters, transactions, persistence (everything is in memory). It never logs message bodies or keys.
 */
import { create_container, type SenderOptions } from "rhea";
import { type AmqpListener, listenForAmqp, type TlsIdentity } from "./amqp-listener";
import { routeLinks } from "./link-router";
import { type TokenSettings, tokenChecker } from "./token-check";
import { TopicRegistry, type TopicStats } from "./topic-registry";

export type { SubscriptionStats, TopicStats } from "./topic-registry";

/** The key name and key of the official emulator's connection string; the stand-in checks neither. */
export const DEV_KEY_NAME = "RootManageSharedAccessKey";
export const DEV_KEY = "SAS_KEY_VALUE";

export interface ServiceBusStandInOptions {
  /** 0 picks a free port. */
  port: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** How long a delivered message stays locked; default 30 s. */
  lockDurationMs?: number;
  /** Failed deliveries before a message is dead-lettered; default 10, as in Service Bus. */
  maxDeliveryCount?: number;
  /** Announced on every sender link, and the size `createMessageBatch` fills to; default 256 KiB (Standard tier). */
  maxMessageSizeBytes?: number;
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
  const host = options.host ?? "127.0.0.1";
  const maxMessageSize = options.maxMessageSizeBytes ?? 256 * 1024;
  const registry = new TopicRegistry({
    lockDurationMs: options.lockDurationMs ?? 30_000,
    maxDeliveryCount: options.maxDeliveryCount ?? 10,
  });
  const container = create_container({ id: "service-bus-stand-in" });
  container.sasl_server_mechanisms.enable_anonymous();
  container.sasl_server_mechanisms.enable_plain(() => true);
  routeLinks(container, registry, {
    maxMessageSize,
    log: options.log ?? (() => {}),
    ...(options.tokens && { checkToken: tokenChecker(options.tokens) }),
    senders: new Set((options.tokens?.senders ?? []).map((id) => id.trim().toLowerCase())),
  });

  // rhea folds `modified` into `released` unless told not to; abandon and defer differ only there.
  const senderOptions = { treat_modified_as_released: false } as SenderOptions;
  const connectionOptions = {
    // Every link the client sends on learns the size limit from the attach (createMessageBatch needs it).
    receiver_options: { max_message_size: maxMessageSize, autoaccept: false },
    sender_options: senderOptions,
  };
  const listener = await listenForAmqp(container, connectionOptions, options.port, host);
  let tlsListener: AmqpListener | undefined;
  if (options.tls) {
    tlsListener = await listenForAmqp(
      container,
      connectionOptions,
      options.tls.port,
      host,
      options.tls,
    ).catch(async (error: unknown) => {
      await listener.close();
      throw error;
    });
  }
  const clientHost = host === "0.0.0.0" ? "127.0.0.1" : host;
  return {
    port: listener.port,
    tlsPort: tlsListener?.port,
    connectionString: (entityPath) =>
      [
        `Endpoint=sb://${clientHost}:${listener.port}/`,
        `SharedAccessKeyName=${DEV_KEY_NAME}`,
        `SharedAccessKey=${DEV_KEY}`,
        "UseDevelopmentEmulator=true",
        ...(entityPath === undefined ? [] : [`EntityPath=${entityPath}`]),
      ].join(";"),
    topicStats: (topic) => registry.stats(topic),
    ensureSubscription: (topic, subscription) => {
      registry.topic(topic).subscription(subscription);
    },
    close: async () => {
      await Promise.all([listener.close(), tlsListener?.close()]);
      registry.dispose();
    },
  };
}
