import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";

/**
 * Makes the local Cosmos DB server's transactional batch behave as Cosmos DB's does, since the
 * service's quota accounting relies on it (a resource and its quota ledger change together or not
 * at all). The server as published stops at the first failure but keeps the operations before it,
 * and reads each operation's partition key from the operation itself, where the SDK leaves it out
 * (it sends one partition key header per batch).
 *
 * Here, as in Cosmos DB: every operation runs in the batch's partition, a document outside it
 * failing with 400; the first failure undoes the operations before it, answers 207 Multi-Status,
 * and gives the others 424 Failed Dependency. (The service sends atomic batches only.)
 */

type Json = Record<string, unknown>;
type Params = { dbId: string; collId: string };
type Result = { statusCode: number; requestCharge: number };

/** The parts of the server's `Items` (its map of a container's documents) a rollback restores. */
interface ItemsStore {
  _data: Map<string, unknown>;
  _index: Map<string, string>;
  _ridCount: number;
}

interface Account {
  database(id: string): {
    collection(id: string): {
      read(): { partitionKey?: { paths?: string[] } } | undefined;
      documents: ItemsStore;
    };
  };
}

type BatchHandler = (
  account: Account,
  req: IncomingMessage,
  res: ServerResponse,
  params: Params,
) => Promise<unknown>;

const PACKAGE = "@vercel/cosmosdb-server";

function valueAt(document: unknown, path: string): unknown {
  let value = document;
  for (const segment of path.split("/").filter(Boolean)) value = (value as Json | undefined)?.[segment];
  return value;
}

/** The store as it is now, and how to put it back (the server replaces documents, never changes them). */
function snapshot(store: ItemsStore): () => void {
  const [data, index, ridCount] = [new Map(store._data), new Map(store._index), store._ridCount];
  return () => Object.assign(store, { _data: data, _index: index, _ridCount: ridCount });
}

/** 207: the operation at `failed` with its status, every other one 424. */
function failedBatch(res: ServerResponse, count: number, failed: number, statusCode: number): Result[] {
  res.statusCode = 207;
  return Array.from({ length: count }, (_, index) => ({
    statusCode: index === failed ? statusCode : 424,
    requestCharge: 0,
  }));
}

function atomicBatch(
  published: BatchHandler,
  readJson: (req: IncomingMessage) => Promise<unknown>,
): BatchHandler {
  return async (account, req, res, params) => {
    const operations = (await readJson(req)) as Json[];
    const collection = account.database(params.dbId).collection(params.collId);
    const definition = collection.read();
    const header = req.headers["x-ms-documentdb-partitionkey"];
    if (!definition || !Array.isArray(operations) || typeof header !== "string") {
      res.statusCode = definition ? 400 : 404;
      return { message: definition ? "Invalid request body" : "The collection does not exist." };
    }
    const keyPath = definition.partitionKey?.paths?.[0] ?? "/id";
    const partitionValue = (JSON.parse(header) as unknown[])[0];
    const outside = operations.findIndex(
      ({ resourceBody }) => resourceBody !== undefined && valueAt(resourceBody, keyPath) !== partitionValue,
    );
    if (outside >= 0) return failedBatch(res, operations.length, outside, 400);
    // The published handler, fed the operations with the batch's partition key.
    const scoped = operations.map((operation) => ({
      ...operation,
      partitionKey: operation.partitionKey ?? header,
    }));
    const body = Object.assign(Readable.from([Buffer.from(JSON.stringify(scoped))]), {
      headers: req.headers,
    });
    const rollback = snapshot(collection.documents);
    const results = await published(account, body as unknown as IncomingMessage, res, params);
    const failed = Array.isArray(results)
      ? results.findIndex((result: Result) => result.statusCode >= 400)
      : 0;
    if (failed < 0) return results;
    rollback();
    if (!Array.isArray(results)) return results; // 400: an operation type it does not know
    return failedBatch(res, results.length, failed, (results[failed] as Result).statusCode);
  };
}

/**
 * Puts the atomic batch in place of the server's own. It must run before the server's route table
 * is loaded (that table keeps the handler it found), so the server module is loaded through here.
 */
let installed = false;

export function loadCosmosServerWithAtomicBatch(): typeof import("@vercel/cosmosdb-server") {
  if (!installed) {
    if (require.cache[require.resolve(`${PACKAGE}/lib/routes`)] !== undefined) {
      throw new Error("The Cosmos DB server was loaded before its batch handler could be made atomic.");
    }
    const handler = require(`${PACKAGE}/lib/handler/batch-documents`) as { default: BatchHandler };
    const json = require(`${PACKAGE}/lib/json`) as { default: (req: IncomingMessage) => Promise<unknown> };
    handler.default = atomicBatch(handler.default, json.default);
    installed = true;
  }
  return require(PACKAGE) as typeof import("@vercel/cosmosdb-server");
}
