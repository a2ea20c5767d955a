import type { FileHandle } from "node:fs/promises";
import { encodeRecord, type StoreChange } from "./cosmos-journal-format";
import type { ChangeSink } from "./cosmos-store-hooks";

/**
 * Appends the store's changes to the journal with group commit: changes collect while a write is
 * on disk, then go out together as one record, written and fdatasync'ed before any request that
 * made them is answered (`durable()`). One write at a time, in order, so a record that a crash
 * cuts short is always the last. `switchTo` starts a new file at an exact point between changes
 * (compaction): the changes made before it go to the old file, the ones after to the new one.
 */

export interface JournalEvents {
  /** After each record is on disk (it may start a compaction). */
  onFlushed?: () => void;
  /** When a write or flush failed: the journal answers nothing from then on. */
  onFailed?: (error: Error) => void;
}

interface Batch {
  file: FileHandle;
  changes: string[];
  /** The sequence number of the last change in it. */
  upTo: number;
}

export class JournalWriter implements ChangeSink {
  private readonly queue: Batch[];
  private appended = 0;
  private durableUpTo = 0;
  private flushing = false;
  private failure: Error | undefined;
  private waiters: { upTo: number; resolve: () => void; reject: (error: Error) => void }[] = [];
  /** Bytes written to the current file. */
  bytes = 0;

  constructor(
    file: FileHandle,
    private readonly events: JournalEvents = {},
  ) {
    this.queue = [{ file, changes: [], upTo: 0 }];
  }

  private get open(): Batch {
    return this.queue[this.queue.length - 1] as Batch;
  }

  append(change: StoreChange): void {
    this.open.changes.push(JSON.stringify(change));
    this.appended++;
    this.open.upTo = this.appended;
  }

  mark(): number {
    return this.open.changes.length;
  }

  discardSince(mark: number): void {
    const dropped = this.open.changes.length - mark;
    this.open.changes.length = mark;
    this.appended -= dropped;
    this.open.upTo = this.appended;
  }

  /** How many changes have been made so far (a point `whenDurable` can wait for). */
  get sequence(): number {
    return this.appended;
  }

  /** Undefined when every change made so far is on disk; else a promise that resolves once it is. */
  durable(): Promise<void> | undefined {
    return this.whenDurable(this.appended);
  }

  whenDurable(upTo: number): Promise<void> | undefined {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.durableUpTo >= upTo) return undefined;
    return new Promise((resolve, reject) => {
      this.waiters.push({ upTo, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  /** Changes from now on go to `file`; the ones before still go to the file they were made for. */
  switchTo(file: FileHandle): void {
    this.queue.push({ file, changes: [], upTo: this.appended });
    this.bytes = 0;
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      for (;;) {
        const batch = this.queue[0] as Batch;
        const last = this.queue.length === 1;
        if (last && batch.changes.length === 0) break;
        // The open batch is taken whole: what is appended during the write waits for the next one.
        if (last) this.queue.push({ file: batch.file, changes: [], upTo: batch.upTo });
        this.queue.shift();
        if (this.failure !== undefined) break;
        if (batch.changes.length > 0) {
          const record = encodeRecord(batch.changes);
          await batch.file.write(record);
          await batch.file.datasync();
          if (batch.file === this.open.file) this.bytes += record.length;
        }
        this.settle(batch.upTo);
        this.events.onFlushed?.();
      }
    } catch (error) {
      this.fail(error as Error);
    } finally {
      this.flushing = false;
    }
  }

  /** Writes nothing more and answers nothing more, as a crash would (tests). */
  halt(): void {
    this.failure ??= new Error("the journal was halted");
    for (const waiter of this.waiters.splice(0)) waiter.reject(this.failure);
  }

  private settle(upTo: number): void {
    this.durableUpTo = Math.max(this.durableUpTo, upTo);
    const ready = this.waiters.filter((waiter) => waiter.upTo <= this.durableUpTo);
    this.waiters = this.waiters.filter((waiter) => waiter.upTo > this.durableUpTo);
    for (const waiter of ready) waiter.resolve();
  }

  /** A write that failed leaves changes in memory that are not on disk: nothing after it is answered. */
  private fail(error: Error): void {
    this.failure = error;
    for (const waiter of this.waiters.splice(0)) waiter.reject(error);
    this.events.onFailed?.(error);
  }
}
