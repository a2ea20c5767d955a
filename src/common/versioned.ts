/** A resource as returned to a caller, with the ETag of the version it was read at. */
export interface Versioned<T> {
  resource: T;
  etag: string;
}
