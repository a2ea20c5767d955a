import type { FileHandle } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import {
  type LegacySnapshot,
  openJournal,
  readDataDir,
  removeJournalsBefore,
  type StoredData,
  snapshotJson,
  writeSnapshot,
} from "./cosmos-data-dir";
import { JournalWriter } from "./cosmos-journal-writer";
import { type AccountNode, attachSink, type ItemsStore } from "./cosmos-store-hooks";
import { applyChange, dumpChanges } from "./cosmos-store-replay";

/**
 * Keeps the local Cosmos server's store on disk: every change is in the journal before the request
 * that made it is answered (`gate`), and compaction folds the journal into a new snapshot. A crash
 * at any point loses nothing answered; see docs/development.md for the order of the steps.
 */

export type CompactionStep = "journal-opened" | "switched" | "snapshot-written" | "snapshot-renamed" | "done";

export interface DurableStoreOptions {
  dir: string;
  /** Compact once the journal is this big, or as big as the last snapshot if that is bigger. */
  compactBytes?: number;
  /** The journal could not be written: nothing more is answered; the owner should stop. */
  onFailure(error: Error): void;
  log?(line: string): void;
  /** Tests: runs at each step of a compaction; `halt` there stops every disk write, as a crash would. */
  atStep?(step: CompactionStep, halt: () => void): void;
}

const DEFAULT_COMPACT_BYTES = 4 * 1024 * 1024;

export class DurableStore {
  private writer: JournalWriter | undefined;
  private account: AccountNode | undefined;
  private generation: number;
  private compacting: Promise<void> | undefined;
  private firstSnapshot: string | undefined;
  private snapshotBytes = 0;
  private halted = false;
  private closing = false;
  /** What `restore` put back: documents, and journal records read (with bytes of a torn last one). */
  readonly restored = { documents: 0, records: 0, tornBytes: 0 };

  private constructor(
    private readonly options: DurableStoreOptions,
    private readonly data: StoredData,
    private file: FileHandle,
  ) {
    this.generation = data.nextJournal;
    this.restored.records = data.records;
    this.restored.tornBytes = data.tornBytes;
  }

  /** Reads the data folder and opens a new journal; throws if a file is damaged other than by a crash. */
  static async open(options: DurableStoreOptions): Promise<DurableStore> {
    const data = readDataDir(options.dir);
    return new DurableStore(options, data, await openJournal(options.dir, data.nextJournal));
  }

  /** Synchronous, in the server's `listening` listener: before it answers any request. */
  restore(account: AccountNode): void {
    this.account = account;
    if (this.data.legacy !== undefined) applyLegacySnapshot(account, this.data.legacy);
    for (const change of this.data.changes) applyChange(account, change);
    this.data.changes.length = 0;
    this.restored.documents = countDocuments(account);
    // What was read becomes one snapshot for the new journal, exactly up to its first change.
    if (this.data.found) this.firstSnapshot = snapshotJson(this.generation, dumpChanges(account));
    this.writer = new JournalWriter(this.file, {
      onFlushed: () => this.maybeCompact(),
      onFailed: (error) => this.options.onFailure(error),
    });
    attachSink(account, this.writer);
  }

  /** Folds what was read at start into one snapshot and removes the journals it came from. */
  async settle(): Promise<void> {
    const json = this.firstSnapshot;
    this.firstSnapshot = undefined;
    if (json !== undefined) await this.run(() => this.fold(json, 0, undefined));
  }

  /** Holds a response until every change made so far (its own included) is on disk. */
  gate(res: ServerResponse): void {
    const end = res.end;
    res.end = ((...args: Parameters<typeof end>) => {
      const waiting = this.writer?.durable();
      if (waiting === undefined) return end.apply(res, args);
      waiting.then(
        () => end.apply(res, args),
        () => res.destroy(),
      );
      return res;
    }) as typeof end;
  }

  private maybeCompact(): void {
    const limit = Math.max(this.options.compactBytes ?? DEFAULT_COMPACT_BYTES, this.snapshotBytes);
    if (this.compacting !== undefined || this.halted || this.closing || (this.writer?.bytes ?? 0) < limit)
      return;
    this.compact().catch((error: Error) => this.log(`compaction failed: ${error.message}`));
  }

  /** A new journal, a snapshot of everything before it, then the old journals go. */
  compact(): Promise<void> {
    return this.run(async () => {
      const next = this.generation + 1;
      const file = await openJournal(this.options.dir, next);
      try {
        this.step("journal-opened");
      } catch (error) {
        await file.close();
        throw error;
      }
      // One synchronous stretch: the snapshot holds exactly the changes made before the switch.
      const json = snapshotJson(next, dumpChanges(this.account as AccountNode));
      const writer = this.writer as JournalWriter;
      const upTo = writer.sequence;
      writer.switchTo(file);
      const old = this.file;
      this.file = file;
      this.generation = next;
      try {
        this.step("switched");
      } catch (error) {
        await old.close();
        throw error;
      }
      await this.fold(json, upTo, old);
    });
  }

  /** After the server stopped answering: the last changes, then a snapshot with no journal after it. */
  async close(): Promise<void> {
    this.closing = true;
    await this.compacting?.catch(() => undefined);
    if (this.halted || this.writer === undefined) {
      // Halted (tests): let go of the file without writing anything more to it.
      await this.file.close().catch(() => undefined);
      return;
    }
    await this.writer.durable();
    this.generation += 1;
    await this.fold(snapshotJson(this.generation, dumpChanges(this.account as AccountNode)), 0, this.file);
  }

  private async fold(json: string, upTo: number, old: FileHandle | undefined): Promise<void> {
    try {
      await writeSnapshot(this.options.dir, json, () => this.step("snapshot-written"));
      this.snapshotBytes = json.length;
      this.step("snapshot-renamed");
      // The old journal goes only once its last record is written: its changes are in the snapshot.
      await this.writer?.whenDurable(upTo)?.catch(() => undefined);
    } finally {
      await old?.close().catch(() => undefined);
    }
    await removeJournalsBefore(this.options.dir, this.generation);
    this.step("done");
  }

  private async run(work: () => Promise<void>): Promise<void> {
    while (this.compacting !== undefined) await this.compacting.catch(() => undefined);
    const running = work();
    this.compacting = running;
    try {
      await running;
    } finally {
      this.compacting = undefined;
    }
  }

  private step(step: CompactionStep): void {
    if (this.halted && step !== "done") throw new Error("the store was halted");
    this.options.atStep?.(step, () => this.halt());
  }

  /** Stops every write to disk from here on, as a crash would (tests). */
  halt(): void {
    this.halted = true;
    this.writer?.halt();
  }

  private log(line: string): void {
    (this.options.log ?? console.error)(`Cosmos DB server: ${line}`);
  }
}

function countDocuments(account: AccountNode): number {
  let documents = 0;
  for (const database of account.databases._data.values()) {
    const id = (database.read() as { id: string }).id;
    for (const collection of account.database(id).collections._data.values()) {
      documents += (collection as unknown as { documents: ItemsStore }).documents._data.size;
    }
  }
  return documents;
}

/** A snapshot from before the journal: made again through the store (new resource ids and ETags). */
function applyLegacySnapshot(account: AccountNode, legacy: LegacySnapshot): void {
  for (const entry of legacy.databases) {
    if (account.database(entry.id).read() === undefined) account.databases.create({ id: entry.id });
    const database = account.database(entry.id);
    for (const container of entry.containers) {
      const partitionKey = { paths: container.partitionKeyPaths, kind: "Hash" };
      database.collections.create({ id: container.id, partitionKey });
      const collection = database.collection(container.id);
      for (const document of container.documents) collection.documents.create(document);
    }
  }
}
