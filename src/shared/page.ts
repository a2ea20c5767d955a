import { InvalidRequestContent } from "./errors";

export interface PageRequest {
  pageSize: number;
  /** The store's continuation token, or undefined for the first page. */
  continuation: string | undefined;
}

export interface Page<T> {
  items: T[];
  /** Absent on the last page. */
  continuation: string | undefined;
}

/** A continuation token the store refuses: it was altered, or issued for another query. */
export class InvalidContinuationToken extends InvalidRequestContent {
  constructor() {
    super("$skipToken is not a token this service issued.", "$skipToken");
  }
}
