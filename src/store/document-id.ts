import { createHash } from "node:crypto";

/** Cosmos DB's limit on a document id. */
const MAX_ID_LENGTH = 255;

/**
 * A document id for a key that may be longer than Cosmos allows (Azure Migrate names run to 260
 * characters): the key itself when it fits, else a hash of it. The name is kept in the document.
 */
export function documentId(key: string): string {
  return key.length <= MAX_ID_LENGTH ? key : `sha256-${createHash("sha256").update(key).digest("hex")}`;
}
