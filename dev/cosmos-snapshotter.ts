import { mkdirSync } from "node:fs";
import * as path from "node:path";
import type { CosmosClient } from "@azure/cosmos";
import { saveSnapshotFile, takeSnapshot } from "./stand-ins/cosmos-snapshot";

/**
 * Takes snapshots of the local Cosmos server into one file, one at a time (a periodic snapshot and
 * the final one on shutdown never interleave), rewriting the file only when the data changed.
 */
export class CosmosSnapshotter {
  private queue: Promise<unknown> = Promise.resolve();
  private lastWritten: string | undefined;

  constructor(
    private readonly client: CosmosClient,
    readonly file: string,
  ) {}

  /** Resolves with whether the file was rewritten. */
  snapshot(): Promise<boolean> {
    const next = this.queue.then(
      () => this.write(),
      () => this.write(),
    );
    this.queue = next;
    return next;
  }

  private async write(): Promise<boolean> {
    const snapshot = await takeSnapshot(this.client);
    const data = JSON.stringify(snapshot.databases);
    if (data === this.lastWritten) return false;
    mkdirSync(path.dirname(this.file), { recursive: true });
    saveSnapshotFile(this.file, snapshot);
    this.lastWritten = data;
    return true;
  }
}
