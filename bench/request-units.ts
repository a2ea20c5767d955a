import type { RequestFacts } from "./http-requests";

/**
 * What a Cosmos DB request costs in request units (RU), from the size of the document it reads or
 * writes. The stand-in charges 1 RU for everything, so the figure is priced from Microsoft's
 * published table instead ("Understand request unit consumption", learn.microsoft.com/azure/
 * cosmos-db/understand-request-unit-consumption: document size against the RU of a point read, at
 * session or eventual consistency, and of a write with default indexing). Sizes between two rows
 * are interpolated; a document under 1 KB costs what 1 KB does.
 */
const PUBLISHED: readonly (readonly [kb: number, read: number, write: number])[] = [
  [1, 1.0, 4.95],
  [2, 1.04, 6.29],
  [4, 1.14, 6.67],
  [8, 1.33, 7.04],
  [16, 1.67, 9.52],
  [32, 2.19, 11.23],
  [64, 4.76, 22.67],
  [128, 9.95, 48.19],
  [256, 20.28, 98.29],
  [512, 40.95, 184.57],
  [1024, 145.9, 625.0],
  [2048, 291.8, 1250.0],
];

/**
 * The RU a Cosmos DB request costs, priced from its answer's size. A point read or write is
 * priced from the table; a transactional batch as its two writes (the service's batches are
 * always a resource and its quota ledger), the answer's size split between them; a query page as a
 * point read of what it returns, a lower bound (a query's charge depends on the index work, which
 * the table does not give); the SDK's query-plan requests and metadata reads (the account, a
 * container) are not in the table and are left at 0.
 */
export function requestUnits(line: string, facts: RequestFacts): number {
  const [method = "", target = ""] = line.split(" ");
  const path = target.slice(target.indexOf("/"));
  if (!/\/docs(\/|$)/.test(path) || facts.cosmos === "query plan") return 0;
  if (facts.cosmos === "query") return pointReadRu(facts.bytes);
  if (facts.cosmos === "batch") return 2 * writeRu(facts.bytes / 2);
  if (method === "GET") return facts.status === 404 ? pointReadRu(0) : pointReadRu(facts.bytes);
  return writeRu(facts.bytes);
}

function interpolate(kb: number, column: 1 | 2): number {
  const rows = PUBLISHED;
  const first = rows[0] as (typeof rows)[number];
  if (kb <= first[0]) return first[column];
  for (let index = 1; index < rows.length; index++) {
    const upper = rows[index] as (typeof rows)[number];
    const lower = rows[index - 1] as (typeof rows)[number];
    if (kb <= upper[0]) {
      return lower[column] + ((upper[column] - lower[column]) * (kb - lower[0])) / (upper[0] - lower[0]);
    }
  }
  const last = rows[rows.length - 1] as (typeof rows)[number];
  return (last[column] * kb) / last[0];
}

/** The RU of a point read of a document of `bytes`: 1 for a miss (404), as for 1 KB. */
export function pointReadRu(bytes: number): number {
  return interpolate(bytes / 1024, 1);
}

/** The RU of a create or replace of a document of `bytes`, default indexing. */
export function writeRu(bytes: number): number {
  return interpolate(bytes / 1024, 2);
}
