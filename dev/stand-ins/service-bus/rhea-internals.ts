import type { Socket } from "node:net";
import {
  type AmqpError,
  type Connection,
  type Delivery,
  type Message,
  message,
  type Sender,
  type Typed,
  types,
} from "rhea";

/**
 * The places the stand-in reaches past rhea's typings: fields and helpers rhea has at run time but
 * does not declare, and two broker-side gaps rhea leaves to the application. Kept in one file so
 * a rhea upgrade that moves them breaks here, loudly, and nowhere else.
 */

interface SenderLinkState {
  credit: number;
  delivery_count: number;
  _draining: boolean;
  _drained: boolean;
  _get_drain(): boolean;
}

/**
 * The delivery count up to which the receiving peer allows deliveries (its last flow's
 * delivery-count + link-credit). rhea only counts a delivery once it is on the wire, so the
 * stand-in compares this with its own count of deliveries handed to rhea.
 */
export function deliveryLimit(sender: Sender): number {
  const state = sender as unknown as SenderLinkState;
  return state.credit + state.delivery_count;
}

/**
 * rhea answers a receiver's drain only while credit remains. When the last credit went to
 * messages it stays silent, and the SDK's `receiveMessages` then times out and closes its link,
 * giving up the locks it just got. Answer every drain, at zero credit too.
 */
export function answerEveryDrain(sender: Sender): void {
  const state = sender as unknown as SenderLinkState;
  state._get_drain = () => {
    if (!(state._draining && state._drained)) return false;
    state.delivery_count += state.credit;
    state.credit = 0;
    return true;
  };
}

/**
 * Whether the session can take one more delivery. rhea keeps every delivery it was handed in one
 * fixed buffer per session (2048 by default) until it is on the wire and settled on both ends,
 * and throws "circular buffer overflow" on the next one: a client granting more credit than that
 * must wait for room, which rhea announces with `sendable`.
 */
export function sessionHasRoom(sender: Sender): boolean {
  const session = sender.session as unknown as { outgoing: { available(): number } };
  return session.outgoing.available() > 0;
}

/**
 * A receiveAndDelete receiver attaches with sender settle mode "settled": it settles nothing, so
 * deliveries must go pre-settled, or they stay in rhea's session buffer for good. Answers the
 * attach with the same mode, which makes rhea send every delivery of the link settled.
 */
export function agreeToPresettled(sender: Sender): boolean {
  if (sender.snd_settle_mode !== 1) return false;
  (sender as unknown as { local: { attach: { snd_settle_mode: number } } }).local.attach.snd_settle_mode = 1;
  return true;
}

type OutcomeName = "accepted" | "released" | "modified" | "rejected";

const outcomes = message as unknown as Record<OutcomeName, (fields?: object) => { described(): unknown }>;

/**
 * Settles a delivery this side sent, with an outcome (settling without one puts an AMQP null on
 * the wire, which rhea's client reports as "unrecognised outcome"). A peek-lock receiver settles
 * second and never tells, so rhea would keep the delivery in its session window forever and stop
 * sending after 2048 of them: mark it settled on both ends once the settlement is queued.
 */
export function settleSent(delivery: Delivery, outcome: OutcomeName, error?: AmqpError): void {
  if (delivery.remote_settled) return;
  delivery.update(true, outcomes[outcome](error === undefined ? {} : { error }).described());
  (delivery as unknown as { remote_settled: boolean }).remote_settled = true;
}

/**
 * The AMQP message format of an array or batch send: one envelope message whose body is a run of
 * data sections, each holding one complete encoded message. Service Bus enqueues those one by one.
 */
export const BATCH_MESSAGE_FORMAT = 0x80013700;

type SectionReader = { read(): Typed; remaining(): number };
const { Reader } = types as unknown as { Reader: new (buffer: Buffer) => SectionReader };

/** The messages inside a batch envelope; throws when the payload is not valid AMQP. */
export function decodeBatch(payload: Buffer): Message[] {
  const reader = new Reader(payload);
  const messages: Message[] = [];
  while (reader.remaining() > 0) {
    const section = reader.read();
    const descriptor: unknown = section.descriptor?.value;
    if ((descriptor === 0x75 || descriptor === "amqp:data:binary") && Buffer.isBuffer(section.value)) {
      // rhea declares `Message` twice; `message.decode` returns the looser one. Same object at run time.
      messages.push(message.decode(section.value) as unknown as Message);
    }
  }
  return messages;
}

/** Drops a connection whose peer did not answer our close: ends the socket and tells rhea it is gone. */
export function abortConnection(connection: Connection, socket: Socket): void {
  (connection as unknown as { abort_socket(socket: Socket): void }).abort_socket(socket);
}
