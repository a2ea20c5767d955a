import type { Container, OperationInput, SqlQuerySpec } from "@azure/cosmos";
import { PreconditionFailed, ServiceUnavailable } from "../common/errors";
import { setOwnProperty } from "../common/own-property";
import { InvalidContinuationToken, type Page, type PageRequest } from "../common/page";
import { isNotFound, translateCosmosError } from "./cosmos-errors";

/** What a conditional delete found. */
export type DeleteOutcome = "deleted" | "absent" | "changed";

export type BatchOutcome =
  | { ok: true; resources: (Record<string, unknown> | undefined)[] }
  | { ok: false; failedIndex: number; status: number };

/** A stored document as read back: the body plus the store's version tag. */
export type Stored<T> = T & { _etag: string };

const SYSTEM_PROPERTIES: ReadonlySet<string> = new Set(["_rid", "_self", "_ts", "_attachments", "_lsn"]);

/** A copy without Cosmos's system properties (but with `_etag`); copied, not deleted, so it stays a fast object. */
export function withoutSystemProperties<T>(resource: Record<string, unknown>): Stored<T> {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(resource)) {
    if (SYSTEM_PROPERTIES.has(key)) continue;
    // A member named __proto__ stays a member, as the spread this replaces kept it.
    setOwnProperty(copy, key, resource[key]);
  }
  return copy as Stored<T>;
}

async function translated<R>(operation: () => Promise<R>): Promise<R> {
  try {
    return await operation();
  } catch (error) {
    throw translateCosmosError(error);
  }
}

/**
 * Typed access to one container. Every write is conditional where it replaces or deletes, so
 * services get optimistic concurrency from Cosmos ETags; every failure is a domain error.
 */
export class DocumentStore<T extends { id: string }> {
  constructor(
    readonly container: Container,
    private readonly partitionKeyOf: (document: T) => string,
  ) {}

  read(id: string, partitionKey: string): Promise<Stored<T> | undefined> {
    return this.readOther<T>(id, partitionKey);
  }

  /** Reads a document of another shape kept in the same container (such as a quota ledger). */
  async readOther<R>(id: string, partitionKey: string): Promise<Stored<R> | undefined> {
    try {
      const { resource } = await this.container.item(id, partitionKey).read();
      return resource ? withoutSystemProperties<R>(resource) : undefined;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw translateCosmosError(error);
    }
  }

  /** Creates the document; a taken id raises Conflict. */
  async create(document: T): Promise<Stored<T>> {
    return translated(async () => {
      const { resource } = await this.container.items.create(document);
      return withoutSystemProperties<T>(resource as unknown as Record<string, unknown>);
    });
  }

  /**
   * Replaces the version read earlier (`etag`), or whatever version is current when `etag` is
   * undefined. A concurrent change raises PreconditionFailed, and so does a concurrent delete
   * (Cosmos answers 404): either way the version read is no longer there.
   */
  async replace(document: T, etag: string | undefined): Promise<Stored<T>> {
    try {
      const { resource } = await this.container
        .item(document.id, this.partitionKeyOf(document))
        .replace(
          document,
          etag === undefined ? {} : { accessCondition: { type: "IfMatch", condition: etag } },
        );
      return withoutSystemProperties<T>(resource as unknown as Record<string, unknown>);
    } catch (error) {
      if (isNotFound(error))
        throw new PreconditionFailed("The resource was deleted concurrently.", "If-Match");
      throw translateCosmosError(error);
    }
  }

  /**
   * Deletes the version read earlier (any version when `etag` is undefined): "absent" when it was
   * gone, "changed" when it was replaced since.
   */
  async delete(id: string, partitionKey: string, etag: string | undefined): Promise<DeleteOutcome> {
    try {
      await this.container
        .item(id, partitionKey)
        .delete(etag === undefined ? {} : { accessCondition: { type: "IfMatch", condition: etag } });
      return "deleted";
    } catch (error) {
      if (isNotFound(error)) return "absent";
      const translated = translateCosmosError(error);
      if (translated instanceof PreconditionFailed) return "changed";
      throw translated;
    }
  }

  /**
   * Runs operations in one partition as a transactional batch: all of them happen or none does.
   * When one fails, tells which and with what status; throttling and outages raise as elsewhere.
   */
  async batch(operations: OperationInput[], partitionKey: string): Promise<BatchOutcome> {
    const response = await this.container.items.batch(operations, partitionKey).catch((error: unknown) => {
      const translatedError = translateCosmosError(error);
      // The SDK rewraps a batch that got no answer as a bare Error, without the cause's code.
      if (translatedError instanceof Error && translatedError.message.startsWith("Batch request error")) {
        throw new ServiceUnavailable("The data store cannot be reached right now.", 5);
      }
      throw translatedError;
    });
    const results = response.result ?? [];
    const failed = results.findIndex((result) => result.statusCode >= 400 && result.statusCode !== 424);
    if (failed < 0 && response.code !== undefined && response.code < 400) {
      return { ok: true, resources: results.map((result) => result.resourceBody) };
    }
    const status = results[failed]?.statusCode ?? response.code ?? 500;
    if (status === 429 || status >= 500) throw translateCosmosError({ code: status });
    return { ok: false, failedIndex: failed, status };
  }

  /** One page of a query, resumable with the returned continuation token. */
  async queryPage(query: SqlQuerySpec, page: PageRequest): Promise<Page<Stored<T>>> {
    try {
      const iterator = this.container.items.query<Record<string, unknown>>(query, {
        maxItemCount: page.pageSize,
        ...(page.continuation !== undefined && { continuationToken: page.continuation }),
      });
      let response = await iterator.fetchNext();
      // Cosmos may answer a page with no items but a continuation; a caller wants items or the end.
      while (response.resources.length === 0 && response.continuationToken) {
        response = await iterator.fetchNext();
      }
      return {
        items: response.resources.map((resource) => withoutSystemProperties<T>(resource)),
        continuation: response.continuationToken || undefined,
      };
    } catch (error) {
      if (page.continuation !== undefined && (error as { code?: unknown }).code === 400) {
        throw new InvalidContinuationToken();
      }
      throw translateCosmosError(error);
    }
  }

  /** Every result of a query; for small result sets such as a quota reconciliation. */
  async queryAll<R>(query: SqlQuerySpec): Promise<R[]> {
    return translated(async () => {
      const { resources } = await this.container.items.query<R>(query).fetchAll();
      return resources;
    });
  }
}
