import type { Page } from "./types";

/** Every item of a list, page after page; `byPage()` walks the pages themselves. */
export interface PagedAsyncIterable<T> extends AsyncIterable<T> {
  byPage(): AsyncIterable<Page<T>>;
}

/** Follows `nextLink` from the first page until a page has none. */
export function pagedList<T>(fetchPage: (nextLink?: string) => Promise<Page<T>>): PagedAsyncIterable<T> {
  async function* pages(): AsyncGenerator<Page<T>> {
    let page = await fetchPage();
    yield page;
    while (page.nextLink !== undefined) {
      page = await fetchPage(page.nextLink);
      yield page;
    }
  }
  async function* items(): AsyncGenerator<T> {
    for await (const page of pages()) yield* page.value;
  }
  return { byPage: pages, [Symbol.asyncIterator]: items };
}
