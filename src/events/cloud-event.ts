import { z } from "zod";

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

export const CLOUD_EVENT_MEDIA_TYPES = [
  "application/json",
  "application/cloudevents+json",
  "application/cloudevents-batch+json",
] as const;
