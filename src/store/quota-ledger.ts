import type { OperationInput } from "@azure/cosmos";
import { QuotaExceeded, ServiceUnavailable } from "../common/errors";
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

type LedgerDocument = { id: string; members: string[] } & Record<string, string | string[]>;

interface Ledger {
  members: Set<string>;
  /** Undefined while the scope has no ledger document yet. */
  etag: string | undefined;
}

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
  /** `partitionKeyField`: the property of the container's partition key, e.g. "instanceKey". */
  constructor(
    private readonly documents: LedgerStore<T>,
    private readonly partitionKeyField: string,
  ) {}

  /** Creates `document` and counts it, or throws QuotaExceeded; Conflict when its id is taken. */
  async create(document: T, scope: QuotaScope): Promise<Stored<T>> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const ledger = await this.read(scope);
      ledger.members.add(document.id);
      if (ledger.members.size > scope.limit) {
        throw new QuotaExceeded(
          `The quota of ${scope.limit} ${scope.noun} is reached; delete one first, or raise ${scope.setting}.`,
        );
      }
      const outcome = await this.documents.batch(
        [{ operationType: "Create", resourceBody: document }, this.ledgerWrite(scope, ledger)],
        scope.partitionKey,
      );
      if (outcome.ok) return withoutSystemProperties<T>(outcome.resources[0] ?? {});
      if (outcome.failedIndex === 0 && outcome.status === 409) throw new Conflict("The id is taken.");
      this.expectLedgerRace(outcome.failedIndex, outcome.status);
      await pause(attempt);
    }
    throw this.contention(scope);
  }

  /** Deletes the version `etag` of the document `id` (any version when undefined) and uncounts it. */
  async delete(id: string, etag: string | undefined, scope: QuotaScope): Promise<DeleteOutcome> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const ledger = await this.read(scope);
      ledger.members.delete(id);
      const outcome = await this.documents.batch(
        [deleteIfMatch(id, etag), this.ledgerWrite(scope, ledger)],
        scope.partitionKey,
      );
      if (outcome.ok) return "deleted";
      if (outcome.failedIndex === 0 && outcome.status === 404) return "absent";
      if (outcome.failedIndex === 0 && outcome.status === 412) return "changed";
      this.expectLedgerRace(outcome.failedIndex, outcome.status);
      await pause(attempt);
    }
    throw this.contention(scope);
  }

  /** The ids the scope's ledger counts, for checks; undefined before the first counted write. */
  async members(scope: QuotaScope): Promise<string[] | undefined> {
    return (await this.documents.readOther<LedgerDocument>(LEDGER_ID, scope.partitionKey))?.members;
  }

  private async read(scope: QuotaScope): Promise<Ledger> {
    const ledger = await this.documents.readOther<LedgerDocument>(LEDGER_ID, scope.partitionKey);
    if (ledger) return { members: new Set(ledger.members), etag: ledger._etag };
    // Resources stored before the scope had a ledger count too.
    const existing = await this.documents.queryAll<string>({
      query: `SELECT VALUE c.id FROM c WHERE c.${this.partitionKeyField} = @partitionKey AND c.id != @ledger`,
      parameters: [
        { name: "@partitionKey", value: scope.partitionKey },
        { name: "@ledger", value: LEDGER_ID },
      ],
    });
    return { members: new Set(existing), etag: undefined };
  }

  /** The ledger's new version, written only if nobody else wrote it since it was read. */
  private ledgerWrite(scope: QuotaScope, ledger: Ledger): OperationInput {
    const resourceBody: LedgerDocument = {
      id: LEDGER_ID,
      [this.partitionKeyField]: scope.partitionKey,
      members: [...ledger.members].sort(),
    };
    return ledger.etag === undefined
      ? { operationType: "Create", resourceBody }
      : { operationType: "Replace", id: LEDGER_ID, resourceBody, ifMatch: ledger.etag };
  }

  /** A batch may fail on its ledger write only because another write got there first. */
  private expectLedgerRace(failedIndex: number, status: number): void {
    if (failedIndex === 1 && (status === 409 || status === 412)) return;
    throw new Error(`Unexpected quota batch failure: operation ${failedIndex} answered ${status}.`);
  }

  private contention(scope: QuotaScope): ServiceUnavailable {
    return new ServiceUnavailable(`Too many concurrent changes to ${scope.noun}; retry shortly.`, 1);
  }
}
