import type { Container } from "@azure/cosmos";
import { PreconditionFailed, QuotaExceeded, ServiceUnavailable } from "../shared/errors";
import { Conflict } from "./cosmos-errors";
import { DocumentStore } from "./document-store";

/**
 * A count quota that holds under concurrent creates, across partitions.
 *
 * Resources of one kind live in many partitions, so no single Cosmos transaction can count and
 * create at once. Instead every create first reserves its key in one ledger document per scope,
 * written with If-Match: of any number of racing writers exactly one wins each version, so the
 * ledger never holds more than `limit` keys. The resource is written after its reservation and
 * released after its delete. A crash between the two steps leaves a stale key; when the ledger is
 * full, keys older than `staleAfterMs` whose resource does not exist are pruned, so a lost step
 * can only delay a create, never let the count exceed the limit.
 */
export interface QuotaLedgerDocument {
  id: string;
  /** Reserved key -> ISO time of its reservation. */
  entries: Record<string, string>;
}

export interface QuotaScope {
  /** Ledger document id, e.g. "authenticationProfiles" or "endpoints|<instance id>". */
  id: string;
  limit: number;
  /** What the quota is of, for the error message: "authentication profiles". */
  noun: string;
  /** Keys of the resources that exist now; used to build and to prune the ledger. */
  existingKeys: () => Promise<string[]>;
}

const MAX_ATTEMPTS = 60;

function pause(attempt: number): Promise<void> {
  const ms = Math.min(200, 5 * 2 ** Math.min(attempt, 6)) * Math.random();
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class QuotaLedger {
  private readonly ledgers: DocumentStore<QuotaLedgerDocument>;

  constructor(
    container: Container,
    private readonly staleAfterMs = 60_000,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.ledgers = new DocumentStore<QuotaLedgerDocument>(container, (doc) => doc.id);
  }

  /** Reserves `key` in the scope, or throws QuotaExceeded when the scope is full. Idempotent. */
  async reserve(scope: QuotaScope, key: string): Promise<void> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const ledger = await this.ledgers.read(scope.id, scope.id);
      if (ledger && Object.hasOwn(ledger.entries, key)) return;
      let entries = ledger?.entries ?? (await this.initialEntries(scope));
      if (Object.keys(entries).length >= scope.limit) entries = await this.pruned(scope, entries);
      if (Object.keys(entries).length >= scope.limit) {
        throw new QuotaExceeded(`The quota of ${scope.limit} ${scope.noun} is reached.`);
      }
      const next = { id: scope.id, entries: { ...entries, [key]: this.now().toISOString() } };
      if (await this.write(next, ledger?._etag)) return;
      await pause(attempt);
    }
    throw new ServiceUnavailable(`Too many concurrent changes to ${scope.noun}; retry shortly.`, 1);
  }

  /** Frees `key`'s place in the scope. */
  async release(scope: QuotaScope, key: string): Promise<void> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const ledger = await this.ledgers.read(scope.id, scope.id);
      // hasOwn: a key such as "constructor" must not match what every object inherits.
      if (!ledger || !Object.hasOwn(ledger.entries, key)) return;
      const { [key]: _released, ...entries } = ledger.entries;
      if (await this.write({ id: scope.id, entries }, ledger._etag)) return;
      await pause(attempt);
    }
    throw new ServiceUnavailable(`Too many concurrent changes to ${scope.noun}; retry shortly.`, 1);
  }

  /** A ledger created after resources already exist starts from them, so they count. */
  private async initialEntries(scope: QuotaScope): Promise<Record<string, string>> {
    const reservedAt = new Date(0).toISOString();
    return Object.fromEntries((await scope.existingKeys()).map((key) => [key, reservedAt]));
  }

  private async pruned(scope: QuotaScope, entries: Record<string, string>): Promise<Record<string, string>> {
    const existing = new Set(await scope.existingKeys());
    const staleBefore = this.now().getTime() - this.staleAfterMs;
    return Object.fromEntries(
      Object.entries(entries).filter(
        ([key, reservedAt]) => existing.has(key) || Date.parse(reservedAt) > staleBefore,
      ),
    );
  }

  /** Writes the ledger if nobody else did since it was read; false when the race was lost. */
  private async write(next: QuotaLedgerDocument, etag: string | undefined): Promise<boolean> {
    try {
      if (etag === undefined) await this.ledgers.create(next);
      else await this.ledgers.replace(next, etag);
      return true;
    } catch (error) {
      if (error instanceof Conflict || error instanceof PreconditionFailed) return false;
      throw error;
    }
  }
}
