import { decodeQueueMessage, isBase64 } from "../../dev/queue-trigger-message";

// How the local queue trigger reads message text: no storage needed.

describe("queue message decoding (host.json messageEncoding: base64)", () => {
  it.each([
    ["aGVsbG8=", true],
    [" aGVs\r\nbG8= ", true],
    ["", true],
    ["aGVsbG8", false],
    ["hello", false],
    ["a===", false],
    ["ab=c", false],
    ["aGVs-G8=", false],
  ])("judges %j as base64: %s, as .NET's Convert.FromBase64String does", (text, valid) => {
    expect(isBase64(text)).toBe(valid);
  });

  it("hands over the decoded text as it is: the worker's library parses it, as with the host's string", () => {
    const encode = (text: string) => Buffer.from(text).toString("base64");
    expect(decodeQueueMessage(encode('{"a":[1,2]}'))).toEqual({ ok: true, text: '{"a":[1,2]}' });
    expect(decodeQueueMessage(encode("plain words ✓"))).toEqual({ ok: true, text: "plain words ✓" });
    expect(decodeQueueMessage("")).toEqual({ ok: true, text: "" });
  });

  it("refuses text that is not base64 instead of guessing", () => {
    expect(decodeQueueMessage("{not base64}")).toEqual({ ok: false });
  });
});
