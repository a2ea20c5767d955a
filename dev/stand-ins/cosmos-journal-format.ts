import { crc32 } from "node:zlib";

/**
 * The local Cosmos server's journal: one line per group commit, `<crc32 as 8 hex digits> <JSON
 * array of changes>\n`. A line is written whole and flushed to disk before any request whose
 * changes it holds is answered, so a line that is cut short or fails its checksum can only be the
 * last one, from a crash in the middle of writing it, and none of its requests had an answer.
 */

/** A change to the server's store, as its in-memory maps saw it (system properties included). */
export type StoreChange =
  | { t: "set"; k: "db"; d: StoredResource; n: number }
  | { t: "set"; k: "coll"; db: string; d: StoredResource; n: number }
  | { t: "set"; k: "doc" | "udf"; db: string; c: string; d: StoredResource; n: number }
  | { t: "del"; k: "db"; id: string }
  | { t: "del"; k: "coll"; db: string; id: string }
  | { t: "del"; k: "doc" | "udf"; db: string; c: string; id: string; p?: unknown };

/** A database, container, document or function as the server stores it. */
export type StoredResource = { id: string; _rid: string } & Record<string, unknown>;

/** One journal line for changes already serialized with JSON.stringify. */
export function encodeRecord(changes: readonly string[]): Buffer {
  const body = Buffer.from(`[${changes.join(",")}]`, "utf8");
  const checksum = crc32(body).toString(16).padStart(8, "0");
  return Buffer.concat([Buffer.from(`${checksum} `, "latin1"), body, Buffer.from("\n", "latin1")]);
}

export interface DecodedJournal {
  /** The changes of every whole record, in order. */
  changes: StoreChange[];
  /** How many records were whole. */
  records: number;
  /** Bytes from the start that hold whole records; what follows is a torn tail (or nothing). */
  validBytes: number;
}

export class CorruptJournalError extends Error {}

function decodeLine(line: Buffer): StoreChange[] | undefined {
  if (line.length < 10 || line[8] !== 0x20) return undefined;
  const body = line.subarray(9);
  if (crc32(body).toString(16).padStart(8, "0") !== line.subarray(0, 8).toString("latin1")) return undefined;
  try {
    const changes: unknown = JSON.parse(body.toString("utf8"));
    return Array.isArray(changes) ? (changes as StoreChange[]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads a journal's whole records. A bad last record (no newline, or a failed checksum) is a write
 * that a crash cut short: it is left out. A bad record with whole records after it is not what a
 * crash leaves, and is refused rather than skipped (what came after it may depend on it).
 */
export function decodeJournal(data: Buffer): DecodedJournal {
  const decoded: DecodedJournal = { changes: [], records: 0, validBytes: 0 };
  let start = 0;
  while (start < data.length) {
    const end = data.indexOf(0x0a, start);
    const changes = end < 0 ? undefined : decodeLine(data.subarray(start, end));
    if (changes === undefined) {
      const rest = end < 0 ? undefined : decodeJournal(data.subarray(end + 1));
      if (rest !== undefined && rest.records > 0) {
        throw new CorruptJournalError(`a damaged record at byte ${start} is followed by whole records`);
      }
      return decoded;
    }
    for (const change of changes) decoded.changes.push(change);
    decoded.records++;
    start = end + 1;
    decoded.validBytes = start;
  }
  return decoded;
}
