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
