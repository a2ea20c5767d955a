import type { OperationInput } from "@azure/cosmos";
import { PreconditionFailed, QuotaExceeded, ServiceUnavailable } from "../common/errors";
import { Conflict } from "./cosmos-errors";
import type { DeleteOutcome, DocumentStore, Stored } from "./document-store";
import { withoutSystemProperties } from "./document-store";

/**
 * A count quota that is exact under any interleaving of writes, on any number of hosts.
 *
 * Each quota scope is one partition of the container that holds the resources it counts, and
 * holds one more document, the ledger, listing the ids of the resources in the scope. Creating a
 * resource and adding its id to the ledger are one transactional batch, and so are deleting it and
 * removing its id: the ledger is replaced with If-Match, so of racing creates and deletes exactly
 * one wins each version of the ledger, the others retry against the new one, and no state exists
 * in which a resource is stored but not counted. A crash cannot leave the two apart either.
 *
 * A ledger is made on first use from the resources already in the scope. Resources created or
 * deleted around the service (say, by hand in the portal) are not seen; deleting the scope's
 * ledger document makes the next write count afresh.
 */
export const LEDGER_ID = "$quota";

export interface QuotaScope {
  /** The partition the scope's resources and its ledger live in. */
  partitionKey: string;
  limit: number;
  /** What the quota is of, for the error message: "authentication profiles". */
  noun: string;
  /** The setting that sets the limit, so the error can say how to raise it. */
  setting: string;
}

type LedgerDocument = { id: string; members: string[]; refersTo?: Record<string, string> } & Record<
  string,
  string | string[] | Record<string, string>
>;

/** A scope's ledger as read: its members, what each refers to (when the ledger keeps that) and its version. */
export interface Ledger {
  members: Set<string>;
  refersTo: Map<string, string>;
  /** Undefined while the scope has no ledger document yet. */
  etag: string | undefined;
}

/** How a ledger is kept beside the resources it counts. */
export interface LedgerOptions<T> {
  /** Its document's id; each ledger of one partition needs its own. */
  ledgerId?: string;
  /**
   * A Cosmos DB SQL condition on `c` that picks the documents counted, for a ledger made from
   * what is stored (default: every document but the ledger, `c.id != @ledger`).
   */
  counted?: string;
  /**
   * What each member refers to (an event route: its endpoint), kept in the ledger so that a write
   * elsewhere can check it and be ordered after it (guard): then every replace goes through the
   * ledger too, since it may change what the member refers to.
   */
  refersTo?: (document: T) => string;
}

/**
 * Operations written in the same transactional batch as a counted write (after the write and the
 * ledger's), made afresh for each attempt; `failed` says what it means when one of them fails:
 * an error for the caller, or undefined to read again and retry (another write got there first).
 */
export interface Alongside {
  operations: OperationInput[];
  failed(index: number, status: number): Error | undefined;
}

export type MakeAlongside = () => Promise<Alongside | undefined>;

/**
 * Judges what a member referred to before a replace or a delete of it changes that (an event
 * route: the endpoint it named), as the ledger the write's batch is conditional on says; undefined
 * when it was no member. Throws to refuse, and nothing is written. Called on every attempt, so a
 * write that lost a race to another is judged again on what the other left.
 */
export type JudgeReferent = (referredTo: string | undefined) => void;

const MAX_ATTEMPTS = 60;

/**
 * A delete of one version. Cosmos DB honours `ifMatch` on every batch operation; the SDK's type
 * leaves it off the delete alone, and passes the operation on as it is.
 */
function deleteIfMatch(id: string, etag: string | undefined): OperationInput {
  return (
    etag === undefined ? { operationType: "Delete", id } : { operationType: "Delete", id, ifMatch: etag }
  ) as OperationInput;
}

/** A ledger write failed: another write of it got there first (undefined: read again), or something else. */
function ledgerRaced(_index: number, status: number): Error | undefined {
  if (status === 409 || status === 412) return undefined;
  return new Error(`Unexpected ledger write failure: it answered ${status}.`);
}

/** How a delete's own operation failed (404 or 412), carried out of the write loop. */
class Outcome extends Error {
  constructor(readonly status: number) {
    super(`delete answered ${status}`);
  }
}

function pause(attempt: number): Promise<void> {
  const ms = Math.min(200, 2 * 2 ** Math.min(attempt, 7)) * Math.random();
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** What the ledger needs of the resources' store (DocumentStore; a fake in unit tests). */
export type LedgerStore<T extends { id: string }> = Pick<
  DocumentStore<T>,
  "readOther" | "batch" | "queryAll"
>;

export class QuotaLedger<T extends { id: string }> {
  readonly ledgerId: string;
  private readonly counted: string;
  private readonly refersTo: ((document: T) => string) | undefined;

  /** `partitionKeyField`: the property of the container's partition key, e.g. "instanceKey". */
  constructor(
    private readonly documents: LedgerStore<T>,
    private readonly partitionKeyField: string,
    options: LedgerOptions<T> = {},
  ) {
    this.ledgerId = options.ledgerId ?? LEDGER_ID;
    this.counted = options.counted ?? "c.id != @ledger";
    this.refersTo = options.refersTo;
  }

  /** Whether replaces must go through the ledger (it keeps what members refer to). */
  get keepsReferences(): boolean {
    return this.refersTo !== undefined;
  }

  /** Creates `document` and counts it, or throws QuotaExceeded; Conflict when its id is taken. */
  create(document: T, scope: QuotaScope, alongside?: MakeAlongside): Promise<Stored<T>> {
    return this.write(scope, alongside, (ledger) => {
      ledger.members.add(document.id);
      this.remember(ledger, document);
      if (ledger.members.size > scope.limit) {
        throw new QuotaExceeded(
          `The quota of ${scope.limit} ${scope.noun} is reached; delete one first, or raise ${scope.setting}.`,
        );
      }
      return {
        operation: { operationType: "Create", resourceBody: document },
        failed: (status) => (status === 409 ? new Conflict("The id is taken.") : undefined),
        done: (resource) => withoutSystemProperties<T>(resource ?? {}),
      };
    });
  }

  /**
   * Replaces the version `etag` of a counted document (any version when undefined), noting what it
   * now refers to; PreconditionFailed when that version is gone (changed, or deleted).
   */
  replace(
    document: T,
    etag: string | undefined,
    scope: QuotaScope,
    alongside?: MakeAlongside,
    judge?: JudgeReferent,
  ): Promise<Stored<T>> {
    return this.write(scope, alongside, (ledger) => {
      judge?.(this.referentOf(ledger, document.id));
      this.remember(ledger, document);
      const operation: OperationInput =
        etag === undefined
          ? { operationType: "Replace", id: document.id, resourceBody: document }
          : { operationType: "Replace", id: document.id, resourceBody: document, ifMatch: etag };
      return {
        operation,
        failed: (status) =>
          status === 404 || status === 412
            ? new PreconditionFailed("The resource was changed or deleted concurrently.", "If-Match")
            : undefined,
        done: (resource) => withoutSystemProperties<T>(resource ?? {}),
      };
    });
  }

  /** Deletes the version `etag` of the document `id` (any version when undefined) and uncounts it. */
  async delete(
    id: string,
    etag: string | undefined,
    scope: QuotaScope,
    alongside?: MakeAlongside,
    judge?: JudgeReferent,
  ): Promise<DeleteOutcome> {
    try {
      return await this.write(scope, alongside, (ledger) => {
        judge?.(this.referentOf(ledger, id));
        ledger.members.delete(id);
        ledger.refersTo.delete(id);
        return {
          operation: deleteIfMatch(id, etag),
          failed: (status) => (status === 404 || status === 412 ? new Outcome(status) : undefined),
          done: (): DeleteOutcome => "deleted",
        };
      });
    } catch (error) {
      if (error instanceof Outcome) return error.status === 404 ? "absent" : "changed";
      throw error;
    }
  }

  /**
   * For a write elsewhere in the partition that must be ordered after this ledger's writes: reads
   * the ledger, lets `check` judge it (and throw), and returns the ledger written back unchanged on
   * that version, for the write's batch. Any write of the ledger in between fails that batch.
   */
  async guard(partitionKey: string, check: (ledger: Ledger) => void): Promise<Alongside> {
    const ledger = await this.read({ partitionKey });
    check(ledger);
    return { operations: [this.ledgerWrite({ partitionKey }, ledger)], failed: ledgerRaced };
  }

  /** The ids the scope's ledger counts, for checks; undefined before the first counted write. */
  async members(scope: QuotaScope): Promise<string[] | undefined> {
    return (await this.documents.readOther<LedgerDocument>(this.ledgerId, scope.partitionKey))?.members;
  }

  /**
   * One counted write: the ledger read, `change` applied to it, then the document's operation, the
   * ledger's write and what goes alongside, as one batch; again on a lost race, from a fresh read.
   */
  private async write<R>(
    scope: QuotaScope,
    alongside: MakeAlongside | undefined,
    change: (ledger: Ledger) => {
      operation: OperationInput;
      failed: (status: number) => Error | undefined;
      done: (resource: Record<string, unknown> | undefined) => R;
    },
  ): Promise<R> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      // Read side by side: what goes alongside is checked by its own write in the batch, not by order.
      const [ledger, more] = await Promise.all([this.read(scope), alongside?.()]);
      const write = change(ledger);
      const outcome = await this.documents.batch(
        [write.operation, this.ledgerWrite(scope, ledger), ...(more?.operations ?? [])],
        scope.partitionKey,
      );
      if (outcome.ok) return write.done(outcome.resources[0]);
      const { failedIndex, status } = outcome;
      const error =
        failedIndex === 0
          ? (write.failed(status) ??
            new Error(`Unexpected quota batch failure: the write answered ${status}.`))
          : failedIndex === 1
            ? ledgerRaced(0, status)
            : more?.failed(failedIndex - 2, status);
      if (error) throw error;
      await pause(attempt);
    }
    throw this.contention(scope);
  }

  /** What the member `id` refers to in this version of the ledger (undefined: no member, or none kept). */
  private referentOf(ledger: Ledger, id: string): string | undefined {
    return ledger.members.has(id) ? ledger.refersTo.get(id) : undefined;
  }

  private remember(ledger: Ledger, document: T): void {
    if (this.refersTo) ledger.refersTo.set(document.id, this.refersTo(document));
  }

  private async read(scope: Pick<QuotaScope, "partitionKey">): Promise<Ledger> {
    const ledger = await this.documents.readOther<LedgerDocument>(this.ledgerId, scope.partitionKey);
    if (ledger) {
      return {
        members: new Set(ledger.members),
        refersTo: new Map(Object.entries(ledger.refersTo ?? {})),
        etag: ledger._etag,
      };
    }
    // Resources stored before the scope had a ledger count too.
    const existing = await this.documents.queryAll<T>({
      query: `SELECT * FROM c WHERE c.${this.partitionKeyField} = @partitionKey AND ${this.counted}`,
      parameters: [
        { name: "@partitionKey", value: scope.partitionKey },
        { name: "@ledger", value: this.ledgerId },
      ],
    });
    const made: Ledger = { members: new Set(), refersTo: new Map(), etag: undefined };
    for (const document of existing) {
      made.members.add(document.id);
      this.remember(made, document);
    }
    return made;
  }

  /** The ledger's new version, written only if nobody else wrote it since it was read. */
  private ledgerWrite(scope: Pick<QuotaScope, "partitionKey">, ledger: Ledger): OperationInput {
    const resourceBody: LedgerDocument = {
      id: this.ledgerId,
      [this.partitionKeyField]: scope.partitionKey,
      members: [...ledger.members].sort(),
      ...(this.refersTo && { refersTo: Object.fromEntries([...ledger.refersTo].sort()) }),
    };
    return ledger.etag === undefined
      ? { operationType: "Create", resourceBody }
      : { operationType: "Replace", id: this.ledgerId, resourceBody, ifMatch: ledger.etag };
  }

  private contention(scope: QuotaScope): ServiceUnavailable {
    return new ServiceUnavailable(`Too many concurrent changes to ${scope.noun}; retry shortly.`, 1);
  }
}
