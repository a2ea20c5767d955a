import type { CallOptions, MatchOptions, PageOptions, WriteOptions } from "./client-options";
import { type PagedAsyncIterable, pagedList } from "./paged-list";
import type { Transport } from "./transport";
import type { Page, PutResult, WithEtag } from "./types";

/**
 * The calls every declarative resource answers the same way (list, GET, PUT, PATCH, DELETE), by
 * path; the resource clients only turn their names into paths.
 */
export class ResourceCalls<T> {
  constructor(
    private readonly transport: Transport,
    private readonly apiVersion: string,
  ) {}

  async get(path: string, options: CallOptions = {}): Promise<WithEtag<T>> {
    const response = await this.transport.send({
      method: "GET",
      url: this.url(path),
      expect: [200],
      signal: options.signal,
    });
    return withEtag<T>(response);
  }

  /** GET with If-None-Match: undefined when the resource still has `etag` (304). */
  async getIfChanged(
    path: string,
    etag: string,
    options: CallOptions = {},
  ): Promise<WithEtag<T> | undefined> {
    const response = await this.transport.send({
      method: "GET",
      url: this.url(path),
      headers: { "if-none-match": etag },
      expect: [200, 304],
      signal: options.signal,
    });
    return response.status === 304 ? undefined : withEtag<T>(response);
  }

  async put(path: string, body: unknown, options: WriteOptions = {}): Promise<PutResult<T>> {
    const response = await this.transport.send({
      method: "PUT",
      url: this.url(path),
      body,
      headers: { "if-match": options.ifMatch, "if-none-match": options.ifNoneMatch },
      expect: [200, 201],
      signal: options.signal,
    });
    return { ...(await withEtag<T>(response)), created: response.status === 201 };
  }

  async patch(path: string, body: unknown, options: MatchOptions = {}): Promise<WithEtag<T>> {
    const response = await this.transport.send({
      method: "PATCH",
      url: this.url(path),
      body,
      headers: { "if-match": options.ifMatch },
      expect: [200],
      signal: options.signal,
    });
    return withEtag<T>(response);
  }

  /** True when something was deleted (200), false when there was nothing (204). */
  async delete(path: string, options: MatchOptions = {}): Promise<boolean> {
    const response = await this.transport.send({
      method: "DELETE",
      url: this.url(path),
      headers: { "if-match": options.ifMatch },
      expect: [200, 204],
      signal: options.signal,
    });
    await response.body?.cancel();
    return response.status === 200;
  }

  /** `POST {path}` with a JSON body (an action on a resource); its 200 JSON answer. */
  async action<R>(path: string, body: unknown, options: CallOptions = {}): Promise<R> {
    const response = await this.transport.send({
      method: "POST",
      url: this.url(path),
      body,
      expect: [200],
      signal: options.signal,
    });
    return (await response.json()) as R;
  }

  async listPage(collectionPath: string, options: PageOptions = {}): Promise<Page<T>> {
    const url =
      options.nextLink === undefined
        ? this.url(collectionPath, options.top === undefined ? {} : { $top: String(options.top) })
        : this.transport.followLink(options.nextLink);
    const response = await this.transport.send({ method: "GET", url, expect: [200], signal: options.signal });
    const body = (await response.json()) as Page<T>;
    return body.nextLink === undefined
      ? { value: body.value }
      : { value: body.value, nextLink: body.nextLink };
  }

  /** `collectionPath` is worked out on the first page, so a bad name rejects like every other call. */
  list(collectionPath: () => string, options: Omit<PageOptions, "nextLink"> = {}): PagedAsyncIterable<T> {
    return pagedList((nextLink) =>
      this.listPage(collectionPath(), nextLink === undefined ? options : { ...options, nextLink }),
    );
  }

  private url(path: string, query: Record<string, string> = {}): URL {
    return this.transport.url(path, { "api-version": this.apiVersion, ...query });
  }
}

async function withEtag<T>(response: Response): Promise<WithEtag<T>> {
  const body = (await response.json()) as T;
  return { ...body, etag: response.headers.get("etag") ?? "" };
}
