// Cursor pagination (PRODUCT §0): `{data, next_cursor, has_more}`, `cursor` is opaque. Iterate
// items with `for await`, or whole pages with `.pages()`; each iteration starts from the first page.

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
  has_more: boolean;
}

export interface Paginated<T> extends AsyncIterable<T> {
  /** Page after page, following next_cursor until has_more is false. */
  pages(): AsyncIterableIterator<Page<T>>;
  /** Every item of every page (mind long lists). */
  toArray(): Promise<T[]>;
}

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
