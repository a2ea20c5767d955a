import { InvalidRequestContent } from "../common/errors";
import { serverSet } from "../common/server-set";
import { systemDataSchema } from "../common/system-data";
import { z } from "../common/zod";
import { endpointNameSchema } from "../endpoints/endpoint-path";
import { FILTER_MAX_DEPTH, FILTER_MAX_LENGTH, parseFilter } from "./filter";

/**
 * The filter is parsed here, with the rest of the body, so one 400 lists its problem beside any
 * other field's: the parser's message names the position and what was expected there.
 */
export const filterSchema = z
  .string()
  .meta({
    description:
      `Which events the route lets through to its endpoint, in Azure Digital Twins' filter language: CloudEvents attributes ` +
      `(id, type, source, subject, time, dataschema, datacontenttype, specversion) and $body.<path> into the event's data ` +
      `(['name'] and [0] for other steps); = != < <= > >=; AND, OR, NOT and parentheses; STARTS_WITH, ENDS_WITH and CONTAINS; ` +
      `string ('…' or "…"), number, true, false and null literals; true or false alone. Values compare case-sensitively; ` +
      `values of different types never compare true. At most ${FILTER_MAX_LENGTH} characters and ${FILTER_MAX_DEPTH} levels of nesting.`,
    example: "type = 'Microsoft.DigitalTwins.Twin.Update' AND $body.temperature > 30",
  })
  .superRefine((text, ctx) => {
    try {
      parseFilter(text);
    } catch (error) {
      if (!(error instanceof InvalidRequestContent)) throw error;
      // "The filter is not valid at …." → "is not valid at …", which validation.ts puts after the field's name.
      ctx.addIssue({ code: "custom", message: error.message.replace(/^The filter /, "").replace(/\.$/, "") });
    }
  });

/** PUT body; `id` and `name` may be echoed back, only with their current values. */
export const eventRoutePutSchema = z.strictObject({
  endpointName: endpointNameSchema.meta({
    description:
      "The endpoint of the same digital twins instance that the route's events go to; it must exist.",
  }),
  filter: filterSchema,
  name: serverSet("The route's name, from the path").optional(),
  id: serverSet("The route's id: its URL path").optional(),
  systemData: systemDataSchema.optional(),
});

/** What callers see. */
export const eventRouteSchema = z.object({
  id: z.string(),
  name: z.string(),
  endpointName: z.string(),
  filter: z.string(),
  systemData: systemDataSchema,
});

export type EventRoutePut = z.output<typeof eventRoutePutSchema>;
export type EventRoutePutInput = z.input<typeof eventRoutePutSchema>;
export type EventRoute = z.infer<typeof eventRouteSchema>;
