import {
  deferWhileSecretsPending,
  SECRETS_PENDING_DEFER_SECONDS,
} from "../../src/delivery/secrets-pending-deferral";
import { MAX_QUEUE_MESSAGE_BYTES } from "../../src/events/queue-message";

// The decisions of the deferral; test/integration/secrets-pending.test.ts sends through Azurite.
const NOW = new Date("2026-11-22T12:00:00.000Z");
const REASON = "SECRETS_ENCRYPTION_KEY is an unresolved Key Vault reference";
const INSTANCE =
  "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/plant";
const event = { id: "1", source: "/twins/test", specversion: "1.0", type: "Twin.Update", data: {} };

/** A queue that keeps what is sent to it. */
function recordingQueue() {
  const sent: { text: string; options: unknown }[] = [];
  return {
    sent,
    name: "twin-events",
    sendMessage: async (text: string, options: unknown) => {
      sent.push({ text, options });
      return {} as never;
    },
  };
}

const decode = (text: string) => JSON.parse(Buffer.from(text, "base64").toString("utf8"));
const options = { reason: REASON, ttlSeconds: 3600, now: NOW };

describe("deferWhileSecretsPending", () => {
  it("puts the message back as it came, every field kept, out of sight for a minute, never expiring", async () => {
    const queue = recordingQueue();
    const message = {
      twinsInstanceId: INSTANCE,
      events: [event],
      receivedAt: "2026-11-22T11:30:00.000Z",
      retry: { endpointName: "e", attempt: 3, lastError: "x", endpointVersion: '"v"' },
      unknownField: "kept",
    };
    expect(await deferWhileSecretsPending(message, queue, options)).toBe(SECRETS_PENDING_DEFER_SECONDS);
    expect(queue.sent).toHaveLength(1);
    expect(decode(queue.sent[0]?.text ?? "")).toEqual(message);
    const { abortSignal, ...sendOptions } = (queue.sent[0]?.options ?? {}) as { abortSignal?: AbortSignal };
    expect(sendOptions).toEqual({ visibilityTimeout: 60, messageTimeToLive: -1 });
    // A write the queue service does not answer is abandoned (src/store/storage-deadline.ts).
    expect(abortSignal).toBeInstanceOf(AbortSignal);
    expect(abortSignal?.aborted).toBe(false);
  });

  it("stamps receivedAt on a message without it, so that the TTL bounds its deferrals", async () => {
    const queue = recordingQueue();
    await deferWhileSecretsPending({ twinsInstanceId: INSTANCE, events: [event] }, queue, options);
    expect(decode(queue.sent[0]?.text ?? "").receivedAt).toBe(NOW.toISOString());
  });

  it("sends a message at the size limit unstamped rather than not at all", async () => {
    const queue = recordingQueue();
    const base = { twinsInstanceId: INSTANCE, events: [{ ...event, data: "" }] };
    const room = Math.floor((MAX_QUEUE_MESSAGE_BYTES * 3) / 4) - JSON.stringify(base).length;
    const full = { twinsInstanceId: INSTANCE, events: [{ ...event, data: "x".repeat(room - 3) }] };
    await deferWhileSecretsPending(full, queue, options);
    expect(queue.sent[0]?.text.length).toBeLessThanOrEqual(MAX_QUEUE_MESSAGE_BYTES);
    expect(decode(queue.sent[0]?.text ?? "")).toEqual(full);
  });

  it.each([
    [
      "received over DELIVERY_TTL_SECONDS ago",
      { twinsInstanceId: INSTANCE, events: [event], receivedAt: "2026-11-22T11:00:00.000Z" },
      /over DELIVERY_TTL_SECONDS ago/,
    ],
    ["no twin-events message", { hello: "world" }, /no twin-events message/],
    ["not JSON at all", "plain text", /no twin-events message/],
  ])(
    "fails the invocation, sending nothing, for a message %s (the host poisons it, whole)",
    async (_label, message, why) => {
      const queue = recordingQueue();
      await expect(deferWhileSecretsPending(message, queue, options)).rejects.toThrow(why);
      await expect(deferWhileSecretsPending(message, queue, options)).rejects.toThrow(REASON);
      expect(queue.sent).toEqual([]);
    },
  );

  it("fails the invocation when the send fails, so that the host retries the original", async () => {
    const queue = {
      name: "twin-events",
      sendMessage: async () => {
        throw new Error("queue unreachable");
      },
    };
    await expect(
      deferWhileSecretsPending({ twinsInstanceId: INSTANCE, events: [event] }, queue, options),
    ).rejects.toThrow("queue unreachable");
  });
});
