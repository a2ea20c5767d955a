import { createHash } from "node:crypto";

/** Cosmos DB's limit on a document id. */
const MAX_ID_LENGTH = 255;

const HASHED_PREFIX = "sha256-";

/**
 * A document id for a key Cosmos may not take as it is (Azure Migrate names run to 260 characters
 * and may start or end with a space): the key itself when it fits, else a hash of it. The name is
 * kept in the document.
 */
export function documentId(key: string): string {
  // Cosmos also refuses ids it would trim to something else (leading or trailing white space).
  // A key that looks like a hashed id is hashed too, or it could take the id of the key it names.
  const fits = key.length <= MAX_ID_LENGTH && key.trim() === key && !key.startsWith(HASHED_PREFIX);
  return fits ? key : `${HASHED_PREFIX}${createHash("sha256").update(key).digest("hex")}`;
}
