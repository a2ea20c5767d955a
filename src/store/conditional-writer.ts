import { PreconditionFailed, ServiceUnavailable } from "../shared/errors";
import { checkPreconditions, hasPreconditions, type Preconditions } from "../shared/preconditions";
import { Conflict } from "./cosmos-errors";
import type { DocumentStore, Stored } from "./document-store";
import type { QuotaLedger, QuotaScope } from "./quota-ledger";

/** Where one resource lives: its document id and partition key. */
export interface DocumentAddress {
  id: string;
  partitionKey: string;
}

/** How many times a write without preconditions re-reads after losing a race before giving up. */
const WRITE_ATTEMPTS = 5;

/**
 * The write paths every resource shares: read the current version, check the client's
 * If-Match / If-None-Match against it, then write conditionally on that same version. A write the
 * client did not make conditional is retried when it loses a race; one it did is answered 412.
 * Where a resource has a count quota, creates reserve a place in it first and deletes release it after.
 */
export class ConditionalWriter<T extends { id: string }> {
  constructor(
    private readonly documents: DocumentStore<T>,
    private readonly quotas: QuotaLedger,
    private readonly describe: string,
  ) {}

  /** Creates or replaces; `build` gets the current version (if any) and returns the new body. */
  async put(
    address: DocumentAddress,
    preconditions: Preconditions,
    build: (existing: Stored<T> | undefined) => T,
    quota?: QuotaScope,
  ): Promise<{ document: Stored<T>; created: boolean }> {
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      const existing = await this.documents.read(address.id, address.partitionKey);
      checkPreconditions(preconditions, existing?._etag);
      if (existing) {
        const replaced = await this.replaceUnlessRaced(build(existing), existing._etag, preconditions);
        if (replaced) return { document: replaced, created: false };
        continue;
      }
      const document = build(undefined);
      if (quota) await this.quotas.reserve(quota, address.id);
      try {
        return { document: await this.documents.create(document), created: true };
      } catch (error) {
        // Someone created it first: go round again and treat it as a replace (or a 412).
        if (!(error instanceof Conflict)) throw error;
      }
    }
    throw this.contention();
  }

  /** Changes an existing resource; `absent` is the error when there is none. */
  async patch(
    address: DocumentAddress,
    preconditions: Preconditions,
    change: (existing: Stored<T>) => T,
    absent: () => Error,
  ): Promise<Stored<T>> {
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      const existing = await this.documents.read(address.id, address.partitionKey);
      checkPreconditions(preconditions, existing?._etag);
      if (!existing) throw absent();
      const replaced = await this.replaceUnlessRaced(change(existing), existing._etag, preconditions);
      if (replaced) return replaced;
    }
    throw this.contention();
  }

  /** Deletes the resource; false when there was nothing to delete. */
  async delete(address: DocumentAddress, preconditions: Preconditions, quota?: QuotaScope): Promise<boolean> {
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      const existing = await this.documents.read(address.id, address.partitionKey);
      checkPreconditions(preconditions, existing?._etag);
      if (!existing) return false;
      try {
        if (!(await this.documents.delete(address.id, address.partitionKey, existing._etag))) return false;
      } catch (error) {
        if (hasPreconditions(preconditions) || !(error instanceof PreconditionFailed)) throw error;
        continue;
      }
      if (quota) await this.quotas.release(quota, address.id);
      return true;
    }
    throw this.contention();
  }

  private async replaceUnlessRaced(
    document: T,
    etag: string,
    preconditions: Preconditions,
  ): Promise<Stored<T> | undefined> {
    try {
      return await this.documents.replace(document, etag);
    } catch (error) {
      if (hasPreconditions(preconditions) || !(error instanceof PreconditionFailed)) throw error;
      return undefined;
    }
  }

  private contention(): ServiceUnavailable {
    return new ServiceUnavailable(`The ${this.describe} is being changed concurrently; retry shortly.`, 1);
  }
}
