import type { OperationInput, SqlQuerySpec } from "@azure/cosmos";
import { PreconditionFailed } from "../../src/common/errors";
import { Conflict } from "../../src/store/cosmos-errors";
import type { BatchOutcome, DeleteOutcome, Stored } from "../../src/store/document-store";

type Document = { id: string } & Record<string, unknown>;

/**
 * An in-memory stand-in for DocumentStore with Cosmos DB's semantics for what the writers use:
 * versions (ETags), conditional replace and delete, and all-or-nothing batches. `beforeWrite` lets
 * a test slip another writer's change in between a read and a write, deterministically.
 */
export class MemoryStore<T extends { id: string }> {
  readonly documents = new Map<string, Stored<Document>>();
  beforeWrite: (() => Promise<void> | void) | undefined;
  private version = 0;

  constructor(private readonly partitionKeyOf: (document: Document) => string) {}

  private key(id: string, partitionKey: string): string {
    return `${partitionKey}\u0000${id}`;
  }

  private stamp(document: Document): Stored<Document> {
    this.version += 1;
    return { ...document, _etag: `v${this.version}` };
  }

  private async intercept(): Promise<void> {
    const hook = this.beforeWrite;
    this.beforeWrite = undefined;
    await hook?.();
  }

  async read(id: string, partitionKey: string): Promise<Stored<T> | undefined> {
    return this.readOther<T>(id, partitionKey);
  }

  async readOther<R>(id: string, partitionKey: string): Promise<Stored<R> | undefined> {
    const found = this.documents.get(this.key(id, partitionKey));
    return found === undefined ? undefined : (structuredClone(found) as unknown as Stored<R>);
  }

  async create(document: T): Promise<Stored<T>> {
    await this.intercept();
    const key = this.key(document.id, this.partitionKeyOf(document as unknown as Document));
    if (this.documents.has(key)) throw new Conflict("taken");
    const stored = this.stamp(document as unknown as Document);
    this.documents.set(key, stored);
    return structuredClone(stored) as unknown as Stored<T>;
  }

  async replace(document: T, etag: string | undefined): Promise<Stored<T>> {
    await this.intercept();
    const key = this.key(document.id, this.partitionKeyOf(document as unknown as Document));
    const current = this.documents.get(key);
    if (current === undefined || (etag !== undefined && current._etag !== etag)) {
      throw new PreconditionFailed("changed", "If-Match");
    }
    const stored = this.stamp(document as unknown as Document);
    this.documents.set(key, stored);
    return structuredClone(stored) as unknown as Stored<T>;
  }

  async delete(id: string, partitionKey: string, etag: string | undefined): Promise<DeleteOutcome> {
    await this.intercept();
    const current = this.documents.get(this.key(id, partitionKey));
    if (current === undefined) return "absent";
    if (etag !== undefined && current._etag !== etag) return "changed";
    this.documents.delete(this.key(id, partitionKey));
    return "deleted";
  }

  async batch(operations: OperationInput[], partitionKey: string): Promise<BatchOutcome> {
    await this.intercept();
    const before = new Map(this.documents);
    const resources: (Record<string, unknown> | undefined)[] = [];
    for (const [index, operation] of operations.entries()) {
      const status = this.apply(
        operation as OperationInput & { ifMatch?: string; id?: string },
        partitionKey,
      );
      if (typeof status === "number") {
        this.documents.clear();
        for (const [key, value] of before) this.documents.set(key, value);
        return { ok: false, failedIndex: index, status };
      }
      resources.push(status);
    }
    return { ok: true, resources };
  }

  async queryAll<R>(query: SqlQuerySpec): Promise<R[]> {
    // The one query the ledgers make: a partition's documents of one kind, for a first count. The
    // kinds' conditions (src/endpoints/instance-partition.ts) are id prefixes, read as such here.
    const documents = [...this.documents.values()];
    const prefix = /STARTSWITH\(c\.id, "([^"]+)"\)/.exec(query.query);
    if (prefix === null) return documents as R[];
    const negated = query.query.includes(`NOT ${prefix[0]}`);
    return documents.filter((document) => document.id.startsWith(prefix[1] as string) !== negated) as R[];
  }

  /** Ids in a partition, the ledger's own document excluded. */
  ids(partitionKey: string, except: string): string[] {
    return [...this.documents.entries()]
      .filter(([key, document]) => key.startsWith(`${partitionKey}\u0000`) && document.id !== except)
      .map(([, document]) => document.id)
      .sort();
  }

  private apply(
    operation: { operationType: string; id?: string; ifMatch?: string; resourceBody?: unknown },
    partitionKey: string,
  ): Stored<Document> | undefined | number {
    const body = operation.resourceBody as Document | undefined;
    const id = operation.id ?? body?.id ?? "";
    const key = this.key(id, partitionKey);
    const current = this.documents.get(key);
    if (body !== undefined && this.partitionKeyOf(body) !== partitionKey) return 400;
    switch (operation.operationType) {
      case "Create": {
        if (current !== undefined) return 409;
        const stored = this.stamp(body as Document);
        this.documents.set(key, stored);
        return stored;
      }
      case "Replace": {
        if (current === undefined) return 404;
        if (operation.ifMatch !== undefined && operation.ifMatch !== current._etag) return 412;
        const stored = this.stamp(body as Document);
        this.documents.set(key, stored);
        return stored;
      }
      case "Read":
        return current ?? 404;
      case "Delete": {
        if (current === undefined) return 404;
        if (operation.ifMatch !== undefined && operation.ifMatch !== current._etag) return 412;
        this.documents.delete(key);
        return undefined;
      }
      default:
        return 400;
    }
  }
}
