import fc from "fast-check";
import { deliveryMessageSchema, parseDeliveryMessage } from "../../src/delivery/delivery-message";
import { cloudEventSchema } from "../../src/events/cloud-event";
import { isCloudEventQuick } from "../../src/events/cloud-event-check";

// The quick checks may say "not sure" (false, then the schema decides), but never yes where the
// schema says no; and where they answer, the message delivery gets is the schema's, field for
// field. Hostile values: every field of every kind, near-misses of each format, odd prototypes.

const nearString = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.constantFrom("", " ", "1.0", "1.0 ", "1", "\u0000", "😀", "__proto__"),
);
const timeLike = fc.oneof(
  fc.constantFrom(
    "2026-11-25T06:00:00Z",
    "2026-11-25T06:00:00.123Z",
    "2026-11-25T06:00:00+01:00",
    "2026-11-25T06:00:00.123456789-05:30",
    "2026-11-25T06:00:00",
    "2026-11-25 06:00:00Z",
    "2026-13-25T06:00:00Z",
    "2026-02-30T06:00:00Z",
    "2026-11-25T24:00:00Z",
    "2026-11-25T06:00:00+0100",
    "2026-11-25T06:00:00z",
    "2026-11-25",
    "",
  ),
  fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
  nearString,
);
const base64Like = fc.oneof(
  fc.constantFrom(
    "",
    "AA==",
    "AAA=",
    "AAAA",
    "AA=",
    "A",
    "AB==",
    "AAAA====",
    "AA AA",
    "A-_A",
    "////",
    "+/+/",
  ),
  fc.uint8Array({ maxLength: 12 }).map((bytes) => Buffer.from(bytes).toString("base64")),
  nearString,
);
const anyValue = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.constant([]),
  fc.constant({}),
  nearString,
);
const fieldValue = (specific: fc.Arbitrary<unknown>) => fc.oneof(specific, anyValue);

/** Events built field by field, each field absent, well-formed or hostile. */
const eventLike = fc
  .record(
    {
      id: fieldValue(fc.string({ minLength: 1, maxLength: 8 })),
      source: fieldValue(fc.constant("/factory/line-1")),
      specversion: fieldValue(fc.constantFrom("1.0", "1.0", "1.1", "1", " 1.0")),
      type: fieldValue(fc.constant("Microsoft.DigitalTwins.Twin.Update")),
      datacontenttype: fieldValue(fc.constant("application/json")),
      dataschema: fieldValue(fc.constant("dtmi:x;1")),
      subject: fieldValue(fc.constant("twin-1")),
      time: fieldValue(timeLike),
      data: anyValue,
      data_base64: fieldValue(base64Like),
      traceparent: anyValue,
      extra: anyValue,
    },
    { requiredKeys: [] },
  )
  .chain((event) =>
    fc
      .constantFrom<(value: Record<string, unknown>) => unknown>(
        (value) => value,
        (value) => value,
        (value) => value,
        (value) => Object.assign(Object.create(null), value),
        (value) => Object.assign(Object.create({ inherited: true }), value),
        (value) => JSON.parse(`{"__proto__":{"id":"x"},${JSON.stringify(value).slice(1)}`.replace(",}", "}")),
        (value) => [value],
        (value) => new Map(Object.entries(value)),
      )
      .map((wrap) => wrap(event)),
  );

const validEvent = fc.record(
  {
    id: fc.string({ minLength: 1, maxLength: 8 }),
    source: fc.constant("/factory/line-1"),
    specversion: fc.constant("1.0"),
    type: fc.constant("Microsoft.DigitalTwins.Twin.Update"),
    time: fc
      .date({ noInvalidDate: true, min: new Date("1970-01-01"), max: new Date("2999-12-31") })
      .map((date) => date.toISOString()),
    data: fc.jsonValue(),
  },
  // As JSON.parse makes them: the quick check leaves other prototypes to the schema.
  { noNullPrototype: true },
);

describe("isCloudEventQuick against cloudEventSchema", () => {
  it("never accepts what the schema refuses", () => {
    fc.assert(
      fc.property(eventLike, (value) => {
        if (isCloudEventQuick(value)) expect(cloudEventSchema.safeParse(value).success).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });

  it("answers for well-formed events itself (so the schema's parse is skipped)", () => {
    fc.assert(fc.property(validEvent, (event) => expect(isCloudEventQuick(event)).toBe(true)));
  });

  it("is not fooled by a remembered time or base64 after a refused one", () => {
    const event = { id: "e", source: "s", specversion: "1.0", type: "t" };
    expect(isCloudEventQuick({ ...event, time: "2026-11-25T06:00:00Z" })).toBe(true);
    expect(isCloudEventQuick({ ...event, time: "2026-11-25T06:00:00" })).toBe(false);
    expect(isCloudEventQuick({ ...event, time: "2026-11-25T06:00:00Z" })).toBe(true);
    expect(isCloudEventQuick({ ...event, data_base64: "AA==" })).toBe(true);
    expect(isCloudEventQuick({ ...event, data_base64: "AA=" })).toBe(false);
    expect(isCloudEventQuick({ ...event, data_base64: new String("AA==") })).toBe(false);
  });
});

const messageLike = fc.record(
  {
    twinsInstanceId: fieldValue(fc.constant("/subscriptions/s/resourceGroups/r/providers/x/y/z")),
    events: fc.oneof(fc.array(eventLike, { maxLength: 3 }), fc.array(validEvent, { maxLength: 3 }), anyValue),
    receivedAt: fieldValue(timeLike),
    retry: fieldValue(
      fc.record(
        {
          endpointName: fieldValue(fc.constant("ep")),
          attempt: fieldValue(fc.integer({ min: -1, max: 3 })),
          lastError: fieldValue(fc.constant("boom")),
          endpointVersion: fieldValue(fc.constant('"etag"')),
        },
        { requiredKeys: [] },
      ),
    ),
    unknown: anyValue,
  },
  { requiredKeys: [] },
);

describe("parseDeliveryMessage against deliveryMessageSchema", () => {
  it("gives the schema's verdict and the schema's data", () => {
    fc.assert(
      fc.property(messageLike, (message) => {
        const mine = parseDeliveryMessage(message);
        const schema = deliveryMessageSchema.safeParse(message);
        expect(mine.success).toBe(schema.success);
        if (mine.success && schema.success) {
          expect(mine.data).toStrictEqual(schema.data);
          expect(Object.keys(mine.data)).toEqual(Object.keys(schema.data));
        }
      }),
      { numRuns: 5000 },
    );
  });

  it("keeps the message's own events, not copies", () => {
    const events = [{ id: "e", source: "s", specversion: "1.0", type: "t", data: { a: 1 } }];
    const parsed = parseDeliveryMessage({ twinsInstanceId: "i", events, unknown: 1 });
    expect(parsed.success && parsed.data.events[0]).toBe(events[0]);
    expect(parsed.success && Object.keys(parsed.data)).toEqual(["twinsInstanceId", "events"]);
  });
});
