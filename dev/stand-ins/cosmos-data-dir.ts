import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
} from "node:fs";
import { type FileHandle, open, rename, unlink } from "node:fs/promises";
import * as path from "node:path";
import { CorruptJournalError, decodeJournal, type StoreChange } from "./cosmos-journal-format";

/**
 * The local Cosmos server's data folder: a snapshot (`cosmos-snapshot.json`: the whole store as
 * changes, and the generation of the journal that continues it) and journals
 * (`cosmos-journal-<generation>.log`: every change made since). What the server holds is the
 * snapshot, then every journal from its generation on, in order. Older journals and a `.tmp`
 * snapshot are what a crash during compaction leaves; they are removed at start.
 */

export const SNAPSHOT_FILE = "cosmos-snapshot.json";
const FORMAT = "cosmos-store/2";
const JOURNAL = /^cosmos-journal-(\d+)\.log$/;

/** The snapshot written before the journal existed (through the REST API, system properties left out). */
export interface LegacySnapshot {
  takenAt: string;
  databases: {
    id: string;
    containers: { id: string; partitionKeyPaths: string[]; documents: Record<string, unknown>[] }[];
  }[];
}

interface SnapshotFile {
  format: typeof FORMAT;
  savedAt: string;
  /** The first journal generation that continues this snapshot. */
  journal: number;
  changes: StoreChange[];
}

export interface StoredData {
  changes: StoreChange[];
  legacy?: LegacySnapshot;
  /** The generation for the next journal: above every one on disk and the snapshot's. */
  nextJournal: number;
  /** Journal records read, and bytes of a torn last record left out. */
  records: number;
  tornBytes: number;
  /** Whether there was anything on disk at all. */
  found: boolean;
}

export function journalFile(dir: string, generation: number): string {
  return path.join(dir, `cosmos-journal-${generation}.log`);
}

export function journalGenerations(dir: string): number[] {
  return readdirSync(dir)
    .map((name) => JOURNAL.exec(name)?.[1])
    .filter((generation): generation is string => generation !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

function readSnapshot(dir: string): SnapshotFile | LegacySnapshot | undefined {
  const file = path.join(dir, SNAPSHOT_FILE);
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, "utf8")) as SnapshotFile | LegacySnapshot;
  } catch (error) {
    throw new Error(`cannot read the snapshot ${file} (${(error as Error).message})`);
  }
}

/** Everything on disk, in the order to apply it. Throws when a file is damaged other than by a crash. */
export function readDataDir(dir: string): StoredData {
  mkdirSync(dir, { recursive: true });
  rmSync(path.join(dir, `${SNAPSHOT_FILE}.tmp`), { force: true });
  const snapshot = readSnapshot(dir);
  const current = snapshot !== undefined && "format" in snapshot ? snapshot : undefined;
  const first = current?.journal ?? 0;
  const generations = journalGenerations(dir);
  const data: StoredData = {
    changes: [...(current?.changes ?? [])],
    ...(snapshot !== undefined && current === undefined && { legacy: snapshot as LegacySnapshot }),
    nextJournal: Math.max(first, ...generations) + 1,
    records: 0,
    tornBytes: 0,
    found: snapshot !== undefined || generations.length > 0,
  };
  for (const generation of generations.filter((g) => g >= first)) {
    const file = journalFile(dir, generation);
    const bytes = readFileSync(file);
    try {
      const journal = decodeJournal(bytes);
      if (data.tornBytes > 0 && journal.records > 0) {
        throw new CorruptJournalError("an earlier journal ends in a damaged record");
      }
      data.changes.push(...journal.changes);
      data.records += journal.records;
      data.tornBytes += bytes.length - journal.validBytes;
    } catch (error) {
      throw new Error(`cannot read the journal ${file} (${(error as Error).message})`);
    }
  }
  return data;
}

/** Makes a rename or a new file in `dir` itself durable (where the platform allows a directory fsync). */
export function syncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // Windows cannot open a directory; its renames are durable without it.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export async function openJournal(dir: string, generation: number): Promise<FileHandle> {
  const file = await open(journalFile(dir, generation), "a");
  syncDir(dir);
  return file;
}

export function snapshotJson(journal: number, changes: StoreChange[]): string {
  const snapshot: SnapshotFile = { format: FORMAT, savedAt: new Date().toISOString(), journal, changes };
  return JSON.stringify(snapshot);
}

/** Writes the snapshot beside, flushes it, then renames it into place: never half a snapshot. */
export async function writeSnapshot(dir: string, json: string, afterWrite: () => void): Promise<void> {
  const file = path.join(dir, SNAPSHOT_FILE);
  const temporary = `${file}.tmp`;
  const handle = await open(temporary, "w");
  try {
    await handle.writeFile(json);
    await handle.sync();
  } finally {
    await handle.close();
  }
  afterWrite();
  await rename(temporary, file);
  syncDir(dir);
}

/** Removes the journals a snapshot has folded in (every generation below `generation`). */
export async function removeJournalsBefore(dir: string, generation: number): Promise<void> {
  for (const old of journalGenerations(dir).filter((g) => g < generation)) {
    await unlink(journalFile(dir, old));
  }
}
