import { message } from "rhea";
import { decodeBatch } from "../../dev/stand-ins/service-bus/batch-decoder";

describe("decodeBatch", () => {
  it("returns each message of a batch envelope, in order, with its properties", () => {
    const inner = [
      message.encode({ body: "first", message_id: "a", application_properties: { n: 1 } }),
      message.encode({ body: "second", message_id: "b" }),
    ];
    const envelope = message.encode({ message_id: "a", body: message.data_sections(inner) });

    const decoded = decodeBatch(envelope);

    expect(decoded.map((m) => [m.message_id, m.body])).toEqual([
      ["a", "first"],
      ["b", "second"],
    ]);
    expect(decoded[0]?.application_properties).toEqual({ n: 1 });
  });

  it("throws on bytes that are not AMQP", () => {
    expect(() => decodeBatch(Buffer.from([0xff, 0x00, 0x01]))).toThrow();
  });
});
