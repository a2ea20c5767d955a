import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * Makes the local Cosmos DB server's transactional batch behave as Cosmos DB's does, since the
 * service's quota accounting relies on it (a resource and its quota ledger change together or not
 * at all). The server as published runs the operations one by one and keeps the ones before a
 * failure, ignores `x-ms-cosmos-batch-atomic`, and reads each operation's partition key from the
 * operation itself, where the SDK leaves it out (it sends one partition key header per batch).
 *
 * Here, as in Cosmos DB: every operation runs in the batch's partition; the first failure undoes
 * the operations before it, answers 207 Multi-Status, and gives the others 424 Failed Dependency.
 */

interface BatchOperation {
  operationType?: string;
  id?: string;
  partitionKey?: string;
  ifMatch?: string;
  resourceBody?: Record<string, unknown>;
}

interface OperationResult {
  statusCode: number;
  body?: { _etag?: string } & Record<string, unknown>;
}

/** The parts of the server's `Items` (its map of a container's documents) a rollback restores. */
interface ItemsStore {
  _data: Map<string, unknown>;
  _index: Map<string, string>;
  _ridCount: number;
}

interface Collection {
  read(): { partitionKey?: { paths?: string[] } } | undefined;
  documents: ItemsStore;
}

interface Account {
  database(id: string): { collection(id: string): Collection };
}

type Operation = (collection: Collection, input: BatchOperation) => OperationResult;

/** The server's own single-operation handlers: its handler/_document-operations module. */
type Operations = Partial<Record<string, Operation>>;

const PACKAGE = "@vercel/cosmosdb-server";
const BATCH_HANDLER = `${PACKAGE}/lib/handler/batch-documents`;

function isTrue(header: string | string[] | undefined): boolean {
  const values = Array.isArray(header) ? header : [header ?? ""];
  return values.some((value) => value.toLowerCase() === "true");
}

function valueAt(document: Record<string, unknown> | undefined, path: string): unknown {
  let value: unknown = document;
  for (const segment of path.split("/").filter(Boolean)) {
    value = value && typeof value === "object" ? (value as Record<string, unknown>)[segment] : undefined;
  }
  return value;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

function snapshot(store: ItemsStore): () => void {
  // The server replaces item objects instead of changing them, so copies of the maps are a snapshot.
  const data = new Map(store._data);
  const index = new Map(store._index);
  const ridCount = store._ridCount;
  return () => {
    store._data = data;
    store._index = index;
    store._ridCount = ridCount;
  };
}

function runOne(operations: Operations, collection: Collection, input: BatchOperation): OperationResult {
  // Create, Upsert, Read, Delete and Replace, as the server's own batch runs them.
  const operation = operations[`${input.operationType?.toLowerCase()}Operation`];
  return operation === undefined
    ? { statusCode: 400, body: { message: `Operation type '${input.operationType}' is not supported.` } }
    : operation(collection, input);
}

function atomicBatch(operations: Operations) {
  return async (
    account: Account,
    req: IncomingMessage,
    res: ServerResponse,
    { dbId, collId }: { dbId: string; collId: string },
  ): Promise<unknown> => {
    const body = await readJson(req);
    const collection = account.database(dbId).collection(collId);
    const definition = collection.read();
    if (!definition) {
      res.statusCode = 404;
      return { message: "The collection does not exist." };
    }
    if (!Array.isArray(body)) {
      res.statusCode = 400;
      return { message: "Invalid request body" };
    }
    const header = req.headers["x-ms-documentdb-partitionkey"];
    const partitionKey = Array.isArray(header) ? header[0] : header;
    const keyPath = definition.partitionKey?.paths?.[0] ?? "/id";
    const partitionValue =
      partitionKey === undefined ? undefined : (JSON.parse(partitionKey) as unknown[])[0];
    const atomic = isTrue(req.headers["x-ms-cosmos-batch-atomic"]);
    const rollback = snapshot(collection.documents);
    const results: OperationResult[] = [];
    for (const input of body as BatchOperation[]) {
      const scoped = { ...input, partitionKey: input.partitionKey ?? partitionKey };
      const outsidePartition =
        input.resourceBody !== undefined &&
        partitionValue !== undefined &&
        valueAt(input.resourceBody, keyPath) !== partitionValue;
      const result = outsidePartition
        ? { statusCode: 400, body: { message: "The document is not in the batch's partition." } }
        : runOne(operations, collection, scoped);
      results.push(result);
      if (atomic && result.statusCode >= 400) break;
    }
    const failed = results.findIndex((result) => result.statusCode >= 400);
    if (atomic && failed >= 0) {
      rollback();
      res.statusCode = 207;
      return body.map((_input, index) =>
        index === failed
          ? { statusCode: results[index]?.statusCode, requestCharge: 0 }
          : { statusCode: 424, requestCharge: 0 },
      );
    }
    return results.map((result) =>
      result.statusCode >= 400
        ? { statusCode: result.statusCode, requestCharge: 0 }
        : {
            statusCode: result.statusCode,
            requestCharge: 1,
            eTag: result.body?._etag,
            resourceBody: result.body,
          },
    );
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
    const handler = require(BATCH_HANDLER) as { default: unknown };
    handler.default = atomicBatch(require(`${PACKAGE}/lib/handler/_document-operations`) as Operations);
    installed = true;
  }
  return require(PACKAGE) as typeof import("@vercel/cosmosdb-server");
}
