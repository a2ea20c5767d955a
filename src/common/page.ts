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

/** The same page with each item changed by `map`. */
export function mapPage<T, R>(page: Page<T>, map: (item: T) => R): Page<R> {
  return { items: page.items.map(map), continuation: page.continuation };
}

/** A continuation token the store refuses: it was altered, or issued for another query. */
export class InvalidContinuationToken extends InvalidRequestContent {
  constructor() {
    super("$skipToken is not a token this service issued.", "$skipToken");
  }
}
