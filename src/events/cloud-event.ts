import { z } from "../common/zod";

/**
 * A CloudEvents 1.0 event in the JSON format. Extension attributes are kept as they are; `data`
 * (any JSON) or `data_base64` carries the payload.
 */
export const cloudEventSchema = z.looseObject({
  id: z.string().min(1),
  source: z.string().min(1),
  specversion: z.literal("1.0"),
  type: z.string().min(1),
  datacontenttype: z.string().min(1).optional(),
  dataschema: z.string().min(1).optional(),
  subject: z.string().min(1).optional(),
  time: z.iso.datetime({ offset: true }).optional(),
  data: z.unknown().optional(),
  data_base64: z.base64().optional(),
});

export type CloudEvent = z.infer<typeof cloudEventSchema>;

/**
 * The CloudEvents JSON format carries the payload in `data` or in `data_base64`, never both: the
 * two are mutually exclusive. Ingest refuses an event with both (delivery would send the bytes of
 * `data_base64` and drop `data`), and its API description says so. An event put on the queue
 * directly is not refused for it.
 */
export const PAYLOAD_MEMBERS = ["data", "data_base64"] as const;

export function hasBothPayloads(event: CloudEvent): boolean {
  return event.data !== undefined && event.data_base64 !== undefined;
}

/** One event of an ingest body as its API description shows it: the schema, and the rule above. */
export const ingestEventSchema = cloudEventSchema.meta({
  // One of the two left out, at least: `not: {required: [both]}`, in a form Redocly's rules take.
  anyOf: PAYLOAD_MEMBERS.map((member) => ({ properties: { [member]: false } })),
  description:
    "A CloudEvents 1.0 event in the JSON format: its payload in data or in data_base64, never both.",
});

/**
 * The longest id an event can be sent with: the id is the Service Bus `messageId`, which holds at
 * most 128 characters (counted as JavaScript counts them, in UTF-16 code units, as the client does).
 * Ingest refuses longer ones; the queue's schema does not, so a message put on the queue directly
 * is still delivered, that one event aside (delivery/shared-batches.ts).
 */
export const MAX_EVENT_ID_LENGTH = 128;

export const CLOUD_EVENT_MEDIA_TYPES = [
  "application/json",
  "application/cloudevents+json",
  "application/cloudevents-batch+json",
] as const;
