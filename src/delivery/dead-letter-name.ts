import { createHash } from "node:crypto";

/**
 * Names of dead-letter blobs: `{endpointName}/{yyyy}/{MM}/{dd}/{HH}/{eventId}.json` (UTC).
 *
 * `{eventId}` is the event id percent-encoded: every character but `A-Z a-z 0-9 - _` becomes the
 * `%XX` of its UTF-8 bytes (uppercase hex), and a lone UTF-16 surrogate, which has no UTF-8, becomes
 * `%uXXXX`. The encoding is reversible, so distinct ids get distinct names, and it keeps `/`, `\`,
 * `.` and `~` out of the id, so no id adds a folder, climbs out of its endpoint's folder, or is
 * mistaken for the parts below.
 *
 * Two more forms keep every event findable without replacing a blob:
 * - `{eventId}.{n}.json` (n = 1, 2, …): a further event with the same id in the same hour (another
 *   source, or other content), written when `{eventId}.json` is taken.
 * - `{start}~{sha256}.json` (and `.{n}.json`): an id whose encoding would make the name longer than
 *   the 1,024 characters Azure allows. `{start}` is the encoded id cut at a whole character and
 *   `{sha256}` the hex SHA-256 of the whole encoded id, so such names stay distinct; the id itself
 *   is read from the blob, which holds the whole event.
 */

/** Azure Storage's limit on a blob name. */
export const MAX_BLOB_NAME_LENGTH = 1024;
/** Names tried for one id in one hour before the write gives up: `{eventId}.json` to `.99.json`. */
export const MAX_NAMES_PER_ID = 100;

const EXTENSION = ".json";
const KEPT = /^[A-Za-z0-9_-]$/;
/** Room kept for the longest `.{n}` suffix, so whether an id is hashed does not depend on n. */
const COPY_SUFFIX_ROOM = `.${MAX_NAMES_PER_ID - 1}`.length;
const HASH_SUFFIX_LENGTH = 1 + 64;

function hex(value: number, digits: number): string {
  return value.toString(16).toUpperCase().padStart(digits, "0");
}

/** One character (a code point, or a lone surrogate), encoded. */
function encodeCharacter(character: string): string {
  if (KEPT.test(character)) return character;
  const code = character.codePointAt(0) as number;
  if (code >= 0xd800 && code <= 0xdfff) return `%u${hex(code, 4)}`;
  return [...Buffer.from(character, "utf8")].map((byte) => `%${hex(byte, 2)}`).join("");
}

/** The encoded characters of an id, in order (string iteration yields lone surrogates on their own). */
function encodedCharacters(id: string): string[] {
  return [...id].map(encodeCharacter);
}

export function encodeEventId(id: string): string {
  return encodedCharacters(id).join("");
}

/** The id an encoding stands for; throws when `encoded` is not exactly what `encodeEventId` makes. */
export function decodeEventId(encoded: string): string {
  const decoded = encoded.replace(/%u([0-9A-F]{4})|(?:%[0-9A-F]{2})+/g, (run, unit?: string) =>
    unit !== undefined
      ? String.fromCharCode(Number.parseInt(unit, 16))
      : Buffer.from(run.replace(/%/g, ""), "hex").toString("utf8"),
  );
  // Only the canonical form decodes: one id, one encoding.
  if (encodeEventId(decoded) !== encoded)
    throw new Error(`not an encoded event id: ${encoded.slice(0, 100)}`);
  return decoded;
}

function pad(value: number): string {
  return String(value).padStart(2, "0");
}

/** `{endpointName}/{yyyy}/{MM}/{dd}/{HH}/`, UTC. */
export function deadLetterFolder(endpointName: string, at: Date): string {
  const hour = [at.getUTCFullYear(), pad(at.getUTCMonth() + 1), pad(at.getUTCDate()), pad(at.getUTCHours())];
  return `${endpointName}/${hour.join("/")}/`;
}

/**
 * The blob name of the `copy`-th event with this id in this endpoint's folder for `at`'s hour:
 * copy 0 is `{eventId}.json`, copy n is `{eventId}.{n}.json`.
 */
export function deadLetterBlobName(endpointName: string, eventId: string, at: Date, copy = 0): string {
  if (!Number.isInteger(copy) || copy < 0 || copy >= MAX_NAMES_PER_ID)
    throw new RangeError(`copy must be an integer from 0 to ${MAX_NAMES_PER_ID - 1}`);
  const folder = deadLetterFolder(endpointName, at);
  const suffix = `${copy === 0 ? "" : `.${copy}`}${EXTENSION}`;
  const room = MAX_BLOB_NAME_LENGTH - folder.length - EXTENSION.length - COPY_SUFFIX_ROOM;
  const encoded = encodeEventId(eventId);
  if (encoded.length <= room) return `${folder}${encoded}${suffix}`;
  return `${folder}${cutEncodedId(eventId, room - HASH_SUFFIX_LENGTH)}~${sha256(encoded)}${suffix}`;
}

/** The event id a dead-letter blob name carries; undefined for the hashed form of a long id. */
export function eventIdOfBlobName(name: string): string | undefined {
  const match = /\/([A-Za-z0-9_%-]*)(?:\.[1-9][0-9]*)?\.json$/.exec(name);
  return match?.[1] === undefined ? undefined : decodeEventId(match[1]);
}

/** The longest start of the encoded id, in whole encoded characters, of at most `length` characters. */
function cutEncodedId(id: string, length: number): string {
  let start = "";
  for (const character of encodedCharacters(id)) {
    if (start.length + character.length > length) break;
    start += character;
  }
  return start;
}

function sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}
