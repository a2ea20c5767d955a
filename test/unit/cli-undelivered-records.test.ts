import { gzipSync } from "node:zlib";
import {
  DEAD_LETTER_METADATA,
  DEAD_LETTER_REASONS,
  deadLetterOf,
  eventIdOf,
  isSelected,
} from "../../client/cli/dead-letter-listing";
import { HOST_GAVE_UP, readPoisonMessage } from "../../client/cli/poison-records";
import { shownUrl, urlSecrets, withoutSignatures } from "../../client/cli/storage-access";
import {
  DEAD_LETTERED_AT_METADATA,
  REASON_METADATA,
  DEAD_LETTER_REASONS as SERVICE_REASONS,
} from "../../src/common/dead-letter-selection";
import { REDELIVERED_METADATA } from "../../src/delivery/dead-letter-claims";
import { deadLetterBlobName } from "../../src/delivery/dead-letter-name";

// What `twin dead-letters list` and `twin poison` read of what the service writes.

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64");
const decode = (text: string | undefined) => JSON.parse(Buffer.from(text ?? "", "base64").toString("utf8"));
const INSTANCE =
  "/subscriptions/s/resourceGroups/rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/a";
const EVENT = { id: "e-1", source: "/s", specversion: "1.0", type: "t" };

describe("dead letters", () => {
  it("reads the metadata names and reasons the service writes", () => {
    expect(DEAD_LETTER_REASONS).toEqual(SERVICE_REASONS);
    expect(DEAD_LETTER_METADATA).toMatchObject({
      reason: REASON_METADATA,
      deadLetteredAt: DEAD_LETTERED_AT_METADATA,
      redelivered: REDELIVERED_METADATA,
    });
  });

  it("takes the event id back from the names the service gives", () => {
    const at = new Date("2026-11-22T10:00:00Z");
    for (const id of ["evt-1", "col/1", "..", "ñandú 7"]) {
      expect(eventIdOf(deadLetterBlobName("orders", id, at, 0))).toBe(id);
      expect(eventIdOf(deadLetterBlobName("orders", id, at, 2))).toBe(id);
    }
    expect(eventIdOf(deadLetterBlobName("orders", "x".repeat(2000), at, 0))).toBeUndefined();
  });

  it("selects by exact reason and inclusive window; a dead letter of no known time only without a window", () => {
    const deadLetter = deadLetterOf({
      name: "orders/2026/11/22/10/e.json",
      metadata: {
        deadletterreason: "TtlExpired",
        deliveryattempts: "3",
        deadletteredat: "2026-11-22T10:00:00.000Z",
      },
    });
    expect(deadLetter).toMatchObject({
      eventId: "e",
      reason: "TtlExpired",
      attempts: 3,
      redelivered: undefined,
    });
    expect(isSelected(deadLetter, { reason: "TtlExpired" })).toBe(true);
    expect(isSelected(deadLetter, { reason: "ttlexpired" })).toBe(false);
    const at = new Date("2026-11-22T10:00:00Z");
    expect(isSelected(deadLetter, { from: at, to: at })).toBe(true);
    expect(isSelected(deadLetter, { from: new Date(at.getTime() + 1) })).toBe(false);
    const unknown = deadLetterOf({ name: "orders/x.json" });
    expect(isSelected(unknown, {})).toBe(true);
    expect(isSelected(unknown, { to: at })).toBe(false);
    // Neither the writer's time nor a creation time: the hour folder of its name, as redelivery takes it.
    const foldered = deadLetterOf({ name: "orders/2026/11/22/10/old.json" });
    expect(foldered.deadLetteredAt).toBe("2026-11-22T10:00:00.000Z");
    expect(isSelected(foldered, { from: at, to: at })).toBe(true);
    expect(isSelected(foldered, { from: new Date(at.getTime() + 1) })).toBe(false);
  });
});

describe("poison records", () => {
  it("requeues a record's instance and events alone, plain or compressed", () => {
    const plain = readPoisonMessage(
      encode({
        reason: "NoDeadLetterSecret",
        detail: "d",
        twinsInstanceId: INSTANCE,
        endpointName: "ep",
        events: [EVENT],
      }),
    );
    expect(plain.summary).toMatchObject({
      reason: "NoDeadLetterSecret",
      events: 1,
      compressed: false,
      endpointName: "ep",
    });
    expect(decode(plain.requeueText)).toEqual({ twinsInstanceId: INSTANCE, events: [EVENT] });
    const eventsGzip = gzipSync(JSON.stringify([EVENT, EVENT])).toString("base64");
    const zipped = readPoisonMessage(
      encode({ reason: "DeadLetterWriteFailed", twinsInstanceId: INSTANCE, eventsGzip }),
    );
    expect(zipped.summary).toMatchObject({ events: 2, compressed: true });
    expect(decode(zipped.requeueText)).toEqual({ twinsInstanceId: INSTANCE, eventsGzip });
  });

  it("requeues a message the host moved as it is, even one that is not JSON", () => {
    const moved = encode({ twinsInstanceId: INSTANCE, events: [EVENT], receivedAt: "2026-11-22T10:00:00Z" });
    expect(readPoisonMessage(moved)).toMatchObject({
      summary: { reason: HOST_GAVE_UP, twinsInstanceId: INSTANCE, events: 1 },
      requeueText: moved,
    });
    expect(readPoisonMessage("not base64 json")).toMatchObject({
      summary: { reason: HOST_GAVE_UP, detail: "not base64 JSON", events: undefined },
      requeueText: "not base64 json",
    });
  });

  it("takes an InvalidMessage record's usable message, and leaves records that hold no events", () => {
    const usable = readPoisonMessage(
      encode({
        reason: "InvalidMessage",
        detail: "d",
        message: { twinsInstanceId: INSTANCE, events: [EVENT], extra: 1 },
      }),
    );
    expect(decode(usable.requeueText)).toEqual({ twinsInstanceId: INSTANCE, events: [EVENT] });
    for (const record of [
      { reason: "InvalidMessage", detail: "d", messageStart: '{"twinsInstanceId":' },
      {
        reason: "InvalidMessage",
        detail: "d",
        message: { twinsInstanceId: INSTANCE, events: [], eventsGzip: "x" },
      },
      {
        reason: "EventTooDeep",
        detail: "d",
        twinsInstanceId: INSTANCE,
        eventLeftOut: { id: "deep", source: "s", type: "t" },
      },
    ]) {
      const reading = readPoisonMessage(encode(record));
      expect({ requeue: reading.requeueText, why: reading.whyNot }).toEqual({
        requeue: undefined,
        why: expect.stringMatching(/holds no events|eventLeftOut deep/),
      });
    }
  });
});

describe("storage URLs in messages", () => {
  const SAS = "https://a.blob.core.windows.net/c?sv=2022-11-02&sp=rl&sig=c2lnbmF0dXJl%2B%3D";

  it("hide a SAS's query and every signature", () => {
    expect(shownUrl(SAS)).toBe("https://a.blob.core.windows.net/c?***");
    expect(shownUrl("https://a.blob.core.windows.net/c")).toBe("https://a.blob.core.windows.net/c");
    expect(withoutSignatures(`GET ${SAS} failed`)).toBe(
      "GET https://a.blob.core.windows.net/c?sv=2022-11-02&sp=rl&sig=*** failed",
    );
    expect(urlSecrets(SAS)).toEqual(expect.arrayContaining(["c2lnbmF0dXJl+=", "c2lnbmF0dXJl%2B%3D"]));
  });
});
