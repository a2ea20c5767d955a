import { PreconditionFailed, ServiceUnavailable } from "../common/errors";
import { checkPreconditions, hasPreconditions, type Preconditions } from "../common/preconditions";
import { Conflict } from "./cosmos-errors";
import type { DeleteOutcome, DocumentStore, Stored } from "./document-store";
import type { JudgeReferent, MakeAlongside, QuotaLedger, QuotaScope } from "./quota-ledger";

/** Where one resource lives: its document id and partition key. */
export interface DocumentAddress {
  id: string;
  partitionKey: string;
}

/** A count quota on the resources: its ledger, and the scope a resource's address falls in. */
export interface CountQuota<T extends { id: string }> {
  ledger: QuotaLedger<T>;
  scopeOf: (address: DocumentAddress) => QuotaScope;
  /** What is written in the batch of each create or replace of `document` (an event route: its endpoint's read). */
  alongsideWrite?: (document: T) => MakeAlongside;
}

/**
 * How many times a write re-reads after losing a race before giving up with 503. A PATCH must apply
 * to the latest version, so each of n racing PATCHes may lose up to n-1 rounds.
 */
const WRITE_ATTEMPTS = 40;

/** Before a write's next attempt after a lost race: nothing first, then a jittered, growing wait. */
export function pause(attempt: number): Promise<void> {
  if (attempt === 0) return Promise.resolve();
  const ms = Math.min(100, 2 ** Math.min(attempt, 7)) * Math.random();
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The write paths every resource shares: read the current version, check the client's
 * If-Match / If-None-Match against it, then write. A write the client made conditional is written
 * on that same version, and answered 412 when it lost a race; a PUT the client did not make
 * conditional replaces whatever is current (the last write wins), and a PATCH is retried on the
 * new version. Where a resource has a count quota, its creates and deletes go through the ledger.
 */
/** What the writer needs of a store (DocumentStore; a fake in unit tests). */
export type WriterStore<T extends { id: string }> = Pick<
  DocumentStore<T>,
  "read" | "create" | "replace" | "delete"
>;

export class ConditionalWriter<T extends { id: string }> {
  constructor(
    private readonly documents: WriterStore<T>,
    private readonly describe: string,
    private readonly quota?: CountQuota<T>,
  ) {}

  /**
   * Creates or replaces; `build` gets the current version (if any) and the address the new body
   * must carry (its id and partition key), and returns the new body. `judge`, for a resource whose
   * ledger keeps what each refers to, judges what a replace changes that from (JudgeReferent).
   */
  async put(
    address: DocumentAddress,
    preconditions: Preconditions,
    build: (existing: Stored<T> | undefined, address: DocumentAddress) => T,
    judge?: JudgeReferent,
  ): Promise<{ document: Stored<T>; created: boolean }> {
    this.mustKeepReferences(judge);
    const conditional = hasPreconditions(preconditions);
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      await pause(attempt);
      const existing = await this.documents.read(address.id, address.partitionKey);
      checkPreconditions(preconditions, existing?._etag);
      if (existing) {
        const replaced = await replaceUnlessRaced(
          this.replacer(address, judge),
          build(existing, address),
          conditional ? existing._etag : undefined,
          conditional,
        );
        if (replaced) return { document: replaced, created: false };
        continue;
      }
      try {
        return { document: await this.create(address, build(undefined, address)), created: true };
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
    const conditional = hasPreconditions(preconditions);
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      await pause(attempt);
      const existing = await this.documents.read(address.id, address.partitionKey);
      checkPreconditions(preconditions, existing?._etag);
      if (!existing) throw absent();
      const replaced = await replaceUnlessRaced(
        this.replacer(address),
        change(existing),
        existing._etag,
        conditional,
      );
      if (replaced) return replaced;
    }
    throw this.contention();
  }

  /**
   * Deletes the resource; false when there was nothing to delete. A DELETE the client made
   * conditional deletes the version its If-Match named, or answers 412; one it did not deletes
   * whatever version is current, so concurrent writes of the resource never make it give up.
   * Only a conditional one reads the resource first: without preconditions the delete's own answer
   * says whether there was one, a Cosmos DB round trip fewer.
   */
  async delete(
    address: DocumentAddress,
    preconditions: Preconditions,
    /** What is written in the counted delete's batch (an endpoint: the route ledger, as checked). */
    alongside?: MakeAlongside,
    /** Judges what the resource referred to, as the ledger the delete is written on says (JudgeReferent). */
    judge?: JudgeReferent,
  ): Promise<boolean> {
    this.mustKeepReferences(judge);
    if (!hasPreconditions(preconditions))
      return (await this.deleteVersion(address, undefined, alongside, judge)) === "deleted";
    const existing = await this.documents.read(address.id, address.partitionKey);
    checkPreconditions(preconditions, existing?._etag);
    if (!existing) return false;
    const outcome = await this.deleteVersion(address, existing._etag, alongside, judge);
    if (outcome === "deleted") return true;
    // The version the client's If-Match named is gone: another request deleted or replaced it.
    throw new PreconditionFailed(
      outcome === "absent"
        ? "The resource was deleted by another request."
        : "The resource has changed: If-Match does not match its current ETag.",
      "If-Match",
    );
  }

  private create(address: DocumentAddress, document: T): Promise<Stored<T>> {
    const { quota } = this;
    if (quota === undefined) return this.documents.create(document);
    return quota.ledger.create(document, quota.scopeOf(address), quota.alongsideWrite?.(document));
  }

  /** Where a replace goes: through the ledger when it keeps what members refer to, else to the store. */
  private replacer(address: DocumentAddress, judge?: JudgeReferent): Pick<DocumentStore<T>, "replace"> {
    const { quota } = this;
    if (quota === undefined || !quota.ledger.keepsReferences) return this.documents;
    return {
      replace: (document, etag) =>
        quota.ledger.replace(document, etag, quota.scopeOf(address), quota.alongsideWrite?.(document), judge),
    };
  }

  private deleteVersion(
    address: DocumentAddress,
    etag: string | undefined,
    alongside: MakeAlongside | undefined,
    judge?: JudgeReferent,
  ): Promise<DeleteOutcome> {
    const { quota } = this;
    if (quota === undefined) return this.documents.delete(address.id, address.partitionKey, etag);
    return quota.ledger.delete(address.id, etag, quota.scopeOf(address), alongside, judge);
  }

  /** A judge of what a resource refers to needs a ledger that keeps it: never silently unjudged. */
  private mustKeepReferences(judge: JudgeReferent | undefined): void {
    if (judge !== undefined && !this.quota?.ledger.keepsReferences)
      throw new Error(`The ${this.describe}'s writer keeps no references to judge.`);
  }

  private contention(): ServiceUnavailable {
    return new ServiceUnavailable(`The ${this.describe} is being changed concurrently; retry shortly.`, 1);
  }
}

/**
 * The replaced document, or undefined when the write lost a race (the version changed since it was
 * read) that the client did not guard against with a precondition: the caller reads again.
 */
export async function replaceUnlessRaced<T extends { id: string }>(
  documents: Pick<DocumentStore<T>, "replace">,
  document: T,
  etag: string | undefined,
  conditional: boolean,
): Promise<Stored<T> | undefined> {
  try {
    return await documents.replace(document, etag);
  } catch (error) {
    if (conditional || !(error instanceof PreconditionFailed)) throw error;
    return undefined;
  }
}
