import type { Message, Typed } from "rhea";
import { decodeMessage, readSections } from "./rhea-internals";

/**
 * The AMQP message format of an array or batch send: one envelope message whose body is a run of
 * data sections, each holding one complete encoded message. Service Bus enqueues those one by one.
 */
export const BATCH_MESSAGE_FORMAT = 0x80013700;

const DATA_SECTION_CODE = 0x75;
const DATA_SECTION_NAME = "amqp:data:binary";

/** The messages inside a batch envelope; throws when the payload is not valid AMQP. */
export function decodeBatch(payload: Buffer): Message[] {
  return readSections(payload)
    .filter(isDataSection)
    .map((section) => decodeMessage(section.value as Buffer));
}

function isDataSection(section: Typed): boolean {
  const descriptor: unknown = section.descriptor?.value;
  return (
    (descriptor === DATA_SECTION_CODE || descriptor === DATA_SECTION_NAME) && Buffer.isBuffer(section.value)
  );
}
