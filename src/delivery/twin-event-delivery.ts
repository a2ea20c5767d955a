import { describeError } from "../common/describe-error";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../common/json-depth";
import { type DeliveryEndpoint, deadLetterField } from "../endpoints/delivery-endpoint";
import { parseTwinsInstanceId } from "../endpoints/endpoint-path";
import type { CloudEvent } from "../events/cloud-event";
import { expandCompressedEvents } from "../events/compressed-events";
import { eventTraceId, eventTraceIds } from "../events/trace-context";
import { type BackoffPolicy, backoffSeconds } from "./backoff";
import type { DeadLetterReason, DeadLetterWriter } from "./dead-letter-writer";
import { type DeliveryCounters, emptyCounters } from "./delivery-counters";
import { type DeliveryLogger, logLine, silentLogger } from "./delivery-log";
import { type DeliveryMessage, parseDeliveryMessage, type RetryState } from "./delivery-message";
import { countEvents, endpointAttributes, recordLatency } from "./delivery-metrics";
import { type DeliveryQueues, EventsDoNotFit, type PoisonRecord } from "./delivery-queues";
import type { EndpointSource } from "./endpoint-cache";
import { deliverToEndpoint, type EndpointDeliveryResult, type SenderSource } from "./endpoint-delivery";
import { storageIdentityFault } from "./identity-faults";
import { type Refusal, SharedBatches } from "./shared-batches";

export interface DeliverySettings {
  maxAttempts: number;
  ttlSeconds: number;
  backoff: BackoffPolicy;
}

/** What delivery works with; each is an interface, so a unit test can hand it fakes. */
export interface DeliveryDependencies {
  /** An instance's endpoints with their secrets opened (the EndpointCache). */
  endpointSource: EndpointSource;
  /** Service Bus senders by connection string and topic (the SenderPool). */
  senders: SenderSource;
  deadLetterWriter: Pick<DeadLetterWriter, "write">;
  /** Retry messages onto the main queue, records onto the poison queue. */
  deliveryQueues: Pick<
    DeliveryQueues,
    "scheduleRetry" | "poisonEvents" | "poisonMessage" | "poisonQueueName"
  >;
  settings: DeliverySettings;
  now?: () => Date;
  /** The jitter of the backoff, from 0 to 1 (Math.random). */
  random?: () => number;
}

/** Dead-letter blobs written at once for one endpoint. */
const DEAD_LETTER_CONCURRENCY = 16;

/** One invocation: what became of its events, and where to say so. */
interface Invocation {
  counters: DeliveryCounters;
  logger: DeliveryLogger;
  /** The trace ids of all the message's events, for the log lines; worked out once, when first asked. */
  allTraceIds?: string;
  /** The message's events, whose trace ids those are (an endpoint that routes name may get fewer). */
  allEvents?: CloudEvent[];
}

/**
 * Delivers the events of one queue message to every endpoint of their instance, and decides the
 * fate of whatever one endpoint did not take: a retry message for that endpoint alone (so no
 * endpoint that took an event is sent it again), or, once attempts or time run out, the dead-letter
 * container, or when that is impossible the poison queue. Every event ends counted in one of
 * delivered, retried, dead-lettered, poisoned or discarded; nothing is dropped silently. Each
 * retry scheduled, each event dead-lettered and each event poisoned is also logged, with where it
 * went (the blob, or the poison queue) and never a secret; so is each endpoint's delivery. Every
 * line names the trace ids of its events (events/trace-context.ts).
 *
 * An endpoint whose secrets this deployment cannot open fails like an unreachable one (retries,
 * then the poison queue, as it cannot be dead-lettered either); the others are not held up.
 *
 * Throwing is kept for faults before anything was sent (the endpoint lookup): the host then
 * retries the whole message.
 */
export class TwinEventDelivery {
  private readonly now: () => Date;

  constructor(private readonly deps: DeliveryDependencies) {
    this.now = deps.now ?? (() => new Date());
  }

  async handle(message: unknown, logger: DeliveryLogger = silentLogger): Promise<DeliveryCounters> {
    const counters = emptyCounters();
    const run: Invocation = { counters, logger };
    const twinsMessage = await this.encodable(run, await this.validated(run, message));
    if (twinsMessage === undefined) return counters;
    const instance = parseTwinsInstanceId(twinsMessage.twinsInstanceId);
    if (!instance) {
      const record: PoisonRecord = {
        reason: "UnknownInstance",
        detail: "twinsInstanceId is not a digital twins instance id",
        twinsInstanceId: twinsMessage.twinsInstanceId,
      };
      await this.poison(run, record, twinsMessage.events);
      return counters;
    }
    const retry = twinsMessage.retry;
    const retryFor = retry?.endpointName.toLowerCase();
    const wanted =
      retry?.endpointVersion === undefined
        ? undefined
        : { endpointName: retry.endpointName, version: retry.endpointVersion };
    const endpoints = (await this.deps.endpointSource.forInstance(instance, wanted)).filter(
      (endpoint) =>
        retry === undefined ||
        (endpoint.name.toLowerCase() === retryFor &&
          (retry.endpointCreatedAt === undefined || endpoint.createdAt === retry.endpointCreatedAt)),
    );
    if (endpoints.length === 0 && retry !== undefined) {
      // The endpoint owed the retry was deleted (perhaps made anew under its name, which is owed
      // nothing of it): its events can reach neither it nor its dead letters, so they are recorded.
      const record: PoisonRecord = {
        reason: "EndpointDeleted",
        detail: `the endpoint '${retry.endpointName}' these events were owed to was deleted before its retry`,
        twinsInstanceId: twinsMessage.twinsInstanceId,
        endpointName: retry.endpointName,
        attempts: retry.attempt,
        lastError: retry.lastError,
      };
      await this.poison(run, record, twinsMessage.events);
      return counters;
    }
    if (endpoints.length === 0) {
      // No endpoint: the events have nowhere to go.
      counters.discarded += twinsMessage.events.length;
      return counters;
    }
    const receivedAt = twinsMessage.receivedAt ?? this.now().toISOString();
    // A retry is owed to its endpoint: the routes let its events through when they were first sent.
    // What does not depend on the endpoint is done once: the events as encoded Service Bus batches.
    const all = new SharedBatches(twinsMessage.events);
    const shares = retryFor === undefined ? this.routed(run, twinsMessage, endpoints, all) : undefined;
    await Promise.all(
      endpoints.map(async (endpoint) => {
        const share = shares?.get(endpoint) ?? { events: twinsMessage.events, batches: all };
        if (share.events.length === 0) return;
        const message =
          share.events === twinsMessage.events ? twinsMessage : { ...twinsMessage, events: share.events };
        await this.deliverTo(run, endpoint, message, share.batches, receivedAt);
      }),
    );
    return counters;
  }

  /**
   * The events each endpoint that routes name is to get (those its routes let through), with
   * batches shared by the endpoints that get the same events; the events no endpoint gets are
   * counted as unrouted, logged at debug level, and go nowhere (never dead-lettered).
   */
  private routed(
    run: Invocation,
    message: DeliveryMessage,
    endpoints: DeliveryEndpoint[],
    all: SharedBatches,
  ): Map<DeliveryEndpoint, { events: CloudEvent[]; batches: SharedBatches }> | undefined {
    if (endpoints.every((endpoint) => endpoint.accepts === undefined)) return undefined;
    const shares = new Map<DeliveryEndpoint, { events: CloudEvent[]; batches: SharedBatches }>();
    const everything = { events: message.events, batches: all };
    const bySelection = new Map<string, { events: CloudEvent[]; batches: SharedBatches }>();
    const reached = new Set<CloudEvent>();
    let everyEventReached = false;
    for (const endpoint of endpoints) {
      const { accepts } = endpoint;
      if (accepts === undefined) {
        everyEventReached = true;
        continue;
      }
      const events: CloudEvent[] = [];
      let selection = "";
      message.events.forEach((event, index) => {
        if (!accepts(event)) return;
        events.push(event);
        selection += `${index},`;
      });
      let share = events.length === message.events.length ? everything : bySelection.get(selection);
      if (share === undefined) {
        share = { events, batches: new SharedBatches(events) };
        bySelection.set(selection, share);
      }
      shares.set(endpoint, share);
      for (const event of events) reached.add(event);
    }
    const unrouted = everyEventReached ? [] : message.events.filter((event) => !reached.has(event));
    if (unrouted.length > 0) {
      run.counters.unrouted += unrouted.length;
      countEvents("unrouted", unrouted.length, endpointAttributes(message.twinsInstanceId));
      run.logger.debug?.(
        logLine("twin events unrouted: no event route lets them through to an endpoint:", {
          instance: message.twinsInstanceId,
          events: unrouted.length,
          traceIds: eventTraceIds(unrouted),
        }),
      );
    }
    return shares;
  }

  /** The message with its events expanded (compressed-events.ts) and checked; poisoned when it is not valid. */
  private async validated(run: Invocation, message: unknown): Promise<DeliveryMessage | undefined> {
    const expanded = await expandCompressedEvents(message);
    const parsed = expanded.ok ? parseDeliveryMessage(expanded.message) : undefined;
    if (parsed?.success) return parsed.data;
    const detail =
      parsed === undefined
        ? (expanded as { detail: string }).detail
        : parsed.error.issues
            .slice(0, 5)
            .map((issue) => `${issue.path.join(".") || "(message)"}: ${issue.message}`)
            .join("; ");
    await this.deps.deliveryQueues.poisonMessage({ reason: "InvalidMessage", detail }, message);
    run.counters.poisoned += 1;
    countEvents("poisoned", 1, {});
    run.logger.error(
      logLine("twin events message poisoned:", {
        reason: "InvalidMessage",
        queue: this.deps.deliveryQueues.poisonQueueName,
        detail,
      }),
    );
    return undefined;
  }

  /**
   * The message without its events that nest deeper than ingest allows (MAX_JSON_DEPTH; a message
   * put on the queue directly was never checked), or undefined when none is left. No client can
   * encode such an event (the Service Bus SDK, JSON.stringify, and so any store or queue overflow
   * the stack on it), so it is never tried: it goes to the poison queue once, with the reason, and
   * the rest of its message is delivered as if it had not been there.
   */
  private async encodable(
    run: Invocation,
    message: DeliveryMessage | undefined,
  ): Promise<DeliveryMessage | undefined> {
    if (message === undefined) return undefined;
    const events: CloudEvent[] = [];
    const tooDeep: CloudEvent[] = [];
    for (const event of message.events)
      (nestsDeeperThan(event, MAX_JSON_DEPTH) ? tooDeep : events).push(event);
    if (tooDeep.length === 0) return message;
    const detail = `the event nests deeper than ${MAX_JSON_DEPTH} levels (ingest's bound): no client can encode it, so it was sent to no endpoint`;
    await this.poison(
      run,
      { reason: "EventTooDeep", detail, twinsInstanceId: message.twinsInstanceId },
      tooDeep,
    );
    return events.length > 0 ? { ...message, events } : undefined;
  }

  private async deliverTo(
    run: Invocation,
    endpoint: DeliveryEndpoint,
    message: DeliveryMessage,
    batches: SharedBatches,
    receivedAt: string,
  ): Promise<void> {
    const result = await deliverToEndpoint(this.deps.senders, endpoint, message.events, batches);
    this.countDelivered(run, endpoint, message, result.delivered);
    const attempts = (message.retry?.attempt ?? 0) + 1;
    // What the client refused can never be sent: dead-lettered at once, not retried.
    for (const [lastError, events] of byError(result.refused)) {
      await this.deadLetter(run, endpoint, message, events, {
        reason: "MessageRefused",
        attempts,
        lastError,
      });
    }
    if (result.failed.length > 0) await this.settleFailed(run, endpoint, message, result, receivedAt);
  }

  private countDelivered(
    run: Invocation,
    endpoint: DeliveryEndpoint,
    message: DeliveryMessage,
    delivered: CloudEvent[],
  ): void {
    run.counters.delivered += delivered.length;
    const attributes = endpointAttributes(message.twinsInstanceId, endpoint.name);
    countEvents("delivered", delivered.length, attributes);
    // The sends are done, so the topic has acknowledged every delivered event by now.
    if (message.receivedAt !== undefined)
      recordLatency(message.receivedAt, this.now(), delivered.length, attributes);
    // A success is counted (the metrics above), not ingested as a line: debug, for looking into one.
    if (delivered.length === 0) return;
    run.logger.debug?.(
      logLine("twin events delivered:", {
        instance: message.twinsInstanceId,
        endpoint: endpoint.name,
        events: delivered.length,
        traceIds: this.deliveredTraceIds(run, message, delivered),
      }),
    );
  }

  /** What the endpoint did not take: a retry for it alone, or once attempts or time run out, its dead letters. */
  private async settleFailed(
    run: Invocation,
    endpoint: DeliveryEndpoint,
    message: DeliveryMessage,
    result: EndpointDeliveryResult,
    receivedAt: string,
  ): Promise<void> {
    const { maxAttempts, ttlSeconds, backoff } = this.deps.settings;
    const attempt = (message.retry?.attempt ?? 0) + 1;
    const lastError = result.lastError ?? "unknown error";
    const ageSeconds = (this.now().getTime() - Date.parse(receivedAt)) / 1000;
    if (attempt >= maxAttempts || ageSeconds >= ttlSeconds) {
      const reason = attempt >= maxAttempts ? "MaxDeliveryAttemptsExceeded" : "TtlExpired";
      await this.deadLetter(run, endpoint, message, result.failed, { reason, attempts: attempt, lastError });
      return;
    }
    // The last retry happens at the TTL at the latest, not a full backoff past it.
    const delay = Math.min(
      backoffSeconds(backoff, attempt, this.deps.random),
      Math.max(1, Math.ceil(ttlSeconds - ageSeconds)),
    );
    const retry: RetryState = { endpointName: endpoint.name, attempt, lastError };
    // Owed under the version tried: another host's cache must not send with older settings.
    if (endpoint.version !== undefined) retry.endpointVersion = endpoint.version;
    if (endpoint.createdAt !== undefined) retry.endpointCreatedAt = endpoint.createdAt;
    const retried = await this.scheduleRetry(
      run,
      endpoint,
      { twinsInstanceId: message.twinsInstanceId, receivedAt, retry },
      result.failed,
      delay,
    );
    run.counters.retried += retried.length;
    countEvents("retried", retried.length, endpointAttributes(message.twinsInstanceId, endpoint.name));
    if (retried.length === 0) return;
    run.logger.warn(
      logLine("twin events delivery failed, retry scheduled:", {
        instance: message.twinsInstanceId,
        endpoint: endpoint.name,
        events: retried.length,
        attempt,
        error: result.lastErrorName ?? "Error",
        nextRetryAt: new Date(this.now().getTime() + delay * 1000).toISOString(),
        lastError,
        traceIds: eventTraceIds(retried),
      }),
    );
  }

  /**
   * Schedules the retry; the events no retry message can carry (too large even alone and
   * compressed: delivery-queues.ts) have no attempt left, so they are dead-lettered now, their last
   * error saying why. Returns the events retried.
   */
  private async scheduleRetry(
    run: Invocation,
    endpoint: DeliveryEndpoint,
    header: Omit<DeliveryMessage, "events">,
    events: CloudEvent[],
    delay: number,
  ): Promise<CloudEvent[]> {
    try {
      await this.deps.deliveryQueues.scheduleRetry(header, events, delay);
      return events;
    } catch (error) {
      if (!(error instanceof EventsDoNotFit)) throw error;
      const message = { ...header, events };
      const attempts = header.retry?.attempt ?? 1;
      const lastError = header.retry?.lastError ?? "unknown error";
      for (const [why, unfit] of byError(error.unfit.map(({ event, why }) => ({ event, error: why })))) {
        await this.deadLetter(run, endpoint, message, unfit, {
          reason: "MaxDeliveryAttemptsExceeded",
          attempts,
          lastError: `${lastError}; no retry is possible: the event ${why}`,
        });
      }
      const unfit = new Set(error.unfit.map(({ event }) => event));
      return events.filter((event) => !unfit.has(event));
    }
  }

  /** The delivered events' trace ids; for all of a message's events, worked out once per invocation. */
  private deliveredTraceIds(run: Invocation, message: DeliveryMessage, delivered: CloudEvent[]): string {
    if (delivered.length !== message.events.length) return eventTraceIds(delivered);
    // Worked out once for the message's events; an endpoint's share (routes) is worked out apart.
    if (run.allEvents === undefined) {
      run.allEvents = message.events;
      run.allTraceIds = eventTraceIds(message.events);
    }
    return run.allEvents === message.events ? (run.allTraceIds as string) : eventTraceIds(delivered);
  }

  private async deadLetter(
    run: Invocation,
    endpoint: DeliveryEndpoint,
    message: DeliveryMessage,
    events: CloudEvent[],
    why: DeadLetterReason,
  ): Promise<void> {
    const record = {
      twinsInstanceId: message.twinsInstanceId,
      endpointName: endpoint.name,
      attempts: why.attempts,
      lastError: why.lastError,
    };
    if (endpoint.sendTo === undefined) {
      const detail = `${why.reason}, and ${endpoint.unusable.reason}`;
      await this.poison(run, { ...record, reason: endpoint.unusable.code, detail }, events);
      return;
    }
    if (endpoint.deadLetter === undefined) {
      const detail = `${why.reason}, and the endpoint has no ${deadLetterField(endpoint)}`;
      await this.poison(run, { ...record, reason: "NoDeadLetterSecret", detail }, events);
      return;
    }
    const at = this.now();
    const unwritten: CloudEvent[] = [];
    let writeError = "";
    for (let start = 0; start < events.length; start += DEAD_LETTER_CONCURRENCY) {
      await Promise.all(
        events.slice(start, start + DEAD_LETTER_CONCURRENCY).map(async (event) => {
          try {
            const place = await this.deps.deadLetterWriter.write(endpoint, event, why, at);
            run.counters.deadLettered++;
            countEvents("deadLettered", 1, endpointAttributes(message.twinsInstanceId, endpoint.name));
            run.logger.warn(
              logLine("twin event dead-lettered:", {
                instance: message.twinsInstanceId,
                endpoint: endpoint.name,
                event: event.id,
                reason: why.reason,
                attempts: why.attempts,
                container: place.container,
                blob: place.blobName,
                traceId: eventTraceId(event),
              }),
            );
          } catch (error) {
            unwritten.push(event);
            writeError =
              (endpoint.deadLetter && storageIdentityFault(error, endpoint.deadLetter)) ??
              describeError(error);
          }
        }),
      );
    }
    if (unwritten.length > 0) {
      const detail = `${why.reason}; the dead-letter write failed: ${writeError}`;
      await this.poison(run, { ...record, reason: "DeadLetterWriteFailed", detail }, unwritten);
    }
  }

  /** Puts events on the poison queue with the reason, then counts and logs each. */
  private async poison(run: Invocation, record: PoisonRecord, events: CloudEvent[]): Promise<void> {
    await this.deps.deliveryQueues.poisonEvents(record, events);
    run.counters.poisoned += events.length;
    countEvents(
      "poisoned",
      events.length,
      endpointAttributes(record.twinsInstanceId ?? "", record.endpointName),
    );
    for (const event of events) {
      run.logger.error(
        logLine("twin event poisoned:", {
          instance: record.twinsInstanceId,
          endpoint: record.endpointName,
          event: event.id,
          reason: record.reason,
          queue: this.deps.deliveryQueues.poisonQueueName,
          detail: record.detail,
          traceId: eventTraceId(event),
        }),
      );
    }
  }
}

/** Refused events grouped by the client's error, in order: one dead-letter reason per group. */
function byError(refused: Refusal[]): Map<string, CloudEvent[]> {
  const groups = new Map<string, CloudEvent[]>();
  for (const { event, error } of refused) groups.set(error, [...(groups.get(error) ?? []), event]);
  return groups;
}
