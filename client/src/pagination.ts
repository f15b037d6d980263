// Cursor pagination (PRODUCT §0): `{data, next_cursor, has_more}`, `cursor` is opaque. Iterate
// items with `for await`, or whole pages with `.pages()`; each iteration starts from the first page.

/** One page of a list: its items, the cursor of the next page, and whether there is one. */
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
  has_more: boolean;
}

/** A list endpoint followed page by page: `for await` over the items, `.pages()` over the pages. */
export interface Paginated<T> extends AsyncIterable<T> {
  /** Page after page, following next_cursor until has_more is false. */
  pages(): AsyncIterableIterator<Page<T>>;
  /** Every item of every page (mind long lists). */
  toArray(): Promise<T[]>;
}

/** Makes a `Paginated` from a function that fetches the page after a cursor. */
export function paginate<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>): Paginated<T> {
  async function* pages(): AsyncIterableIterator<Page<T>> {
    let cursor: string | undefined;
    for (;;) {
      const page = await fetchPage(cursor);
      yield page;
      if (!page.has_more || page.next_cursor === null) return;
      if (page.next_cursor === cursor) throw new Error('the server returned the same cursor twice');
      cursor = page.next_cursor;
    }
  }
  async function* items(): AsyncIterableIterator<T> {
    for await (const page of pages()) yield* page.data;
  }
  return {
    pages,
    [Symbol.asyncIterator]: items,
    async toArray() {
      const all: T[] = [];
      for await (const item of items()) all.push(item);
      return all;
    },
  };
}
