import { decodeQueueMessage } from "../../dev/queue-trigger";

// How the local queue trigger reads message text (host.json messageEncoding: base64): no storage needed.

describe("queue message decoding", () => {
  it.each([
    ["aGVsbG8=", "hello"],
    [" aGVs\r\nbG8= ", "hello"],
    ["", ""],
    [Buffer.from('{"a":[1,2]} ✓').toString("base64"), '{"a":[1,2]} ✓'],
  ])("hands over %j decoded as it is, as .NET's Convert.FromBase64String reads it", (text, decoded) => {
    expect(decodeQueueMessage(text)).toEqual({ ok: true, text: decoded });
  });

  it.each(["aGVsbG8", "hello", "a===", "ab=c", "aGVs-G8=", "{not base64}"])(
    "refuses %j instead of guessing, as .NET's Convert.FromBase64String does",
    (text) => expect(decodeQueueMessage(text)).toEqual({ ok: false }),
  );
});
