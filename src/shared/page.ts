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
