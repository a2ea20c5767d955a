import type { CallOptions } from "./client-options";
import { eventsPath } from "./resource-paths";
import type { Transport } from "./transport";
import type { CloudEvent, IngestResult } from "./types";

/** `POST {twinsInstanceId}/events`: CloudEvents for the instance's endpoints. */
export class EventsClient {
  constructor(
    private readonly transport: Transport,
    private readonly apiVersion: string,
  ) {}

  /**
   * Resolves once every event is durably queued (202). A 503 is retried; part of a batch may have
   * been queued before it, so a retry can repeat events (delivery is at least once).
   */
  async ingest(
    twinsInstanceId: string,
    events: CloudEvent | CloudEvent[],
    options: CallOptions = {},
  ): Promise<IngestResult> {
    const response = await this.transport.send({
      method: "POST",
      url: this.transport.url(eventsPath(twinsInstanceId), { "api-version": this.apiVersion }),
      body: events,
      contentType: Array.isArray(events)
        ? "application/cloudevents-batch+json"
        : "application/cloudevents+json",
      expect: [202],
      signal: options.signal,
    });
    return (await response.json()) as IngestResult;
  }
}
