import { randomFillSync } from "node:crypto";

/** How many ids one fill of random bytes makes (as Node's randomUUID batches its entropy too). */
const BATCH = 128;
const HEX = Buffer.from("0123456789abcdef", "latin1");
const random = Buffer.alloc(16 * BATCH);
/** BATCH ids as text, 36 characters each, written once a batch. */
const text = Buffer.alloc(36 * BATCH);
let next = BATCH;

/** Writes BATCH version-4 UUIDs (RFC 9562 §5.4) from fresh random bytes into `text`. */
function fill(): void {
  randomFillSync(random);
  let at = 0;
  for (let byte = 0; byte < random.length; byte++) {
    const index = byte % 16;
    let value = random[byte] as number;
    if (index === 6)
      value = (value & 0x0f) | 0x40; // version 4
    else if (index === 8) value = (value & 0x3f) | 0x80; // variant 10
    if (index === 4 || index === 6 || index === 8 || index === 10) text[at++] = 0x2d; // "-"
    text[at++] = HEX[value >> 4] as number;
    text[at++] = HEX[value & 0x0f] as number;
  }
  next = 0;
}

/**
 * A random version-4 UUID in lower case, as crypto.randomUUID makes one, from the same
 * cryptographic source. Made for request, correlation and invocation ids, several a request:
 * randomUUID builds each of its 36 characters into a string of its own (about 640 bytes of garbage
 * an id); here a batch is written as bytes and each id read out as one string (about 60 bytes).
 */
export function randomId(): string {
  if (next === BATCH) fill();
  const start = 36 * next++;
  return text.toString("latin1", start, start + 36);
}
