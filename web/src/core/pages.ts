// A whole list read a page at a time through the resource cache: the first page as soon as it
// comes (the screen paints from it), the next ones after it by their cursors, each a cache entry
// watched like any other, so a signal that names the list reads every page again (If-None-Match:
// unchanged pages answer 304) and an entry a newer first page no longer leads to is let go.
import { useEffect, useState } from 'preact/hooks';
import type { ResourceState } from '../../../client/src/index.js';
import { cache } from './cache.js';
import type { ListPage } from './cache.js';

/** The keys of a list's pages read so far: the first, then one per next_cursor answered. */
function chainOf(first: string): string[] {
  const keys = [first];
  for (;;) {
    const page = cache.peek<ListPage<unknown>>(keys[keys.length - 1]!).data;
    if (!page?.has_more || !page.next_cursor) return keys;
    keys.push(`${first}${first.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(page.next_cursor)}`);
  }
}

/** The whole list and the first page's state (loading, failed, settled): every page's items, in order. */
export interface AllPages<T> {
  first: ResourceState<ListPage<T>>;
  items: T[];
  /** Pages are still being read after the ones shown. */
  more: boolean;
}

/**
 * Every page of the list at `key` (which holds its limit), read one after another. `onPage` is
 * told of each page on every drawing, before what it draws, with whether this answer is new
 * (`fresh`): the contacts list fills the cache with the cards it brings, so no card is read on
 * its own, and a held page puts back only cards the cache let go of, never over a newer one.
 */
export function useAllPages<T>(key: string | undefined, onPage?: (page: ListPage<T>, fresh: boolean) => void): AllPages<T> {
  const [, setTick] = useState(0);
  const [told] = useState(() => new WeakSet<object>());
  const keys = key ? chainOf(key) : [];
  const joined = keys.join('\n');
  useEffect(() => {
    const stops = keys.map((k) => cache.watch(k, () => setTick((tick) => tick + 1)));
    return () => stops.forEach((stop) => stop());
  }, [joined]);
  const items: T[] = [];
  for (const k of keys) {
    const data = cache.peek<ListPage<T>>(k).data;
    if (!data) continue;
    if (onPage) {
      onPage(data, !told.has(data));
      told.add(data);
    }
    items.push(...data.data);
  }
  const last = keys.length ? cache.peek<ListPage<T>>(keys[keys.length - 1]!) : undefined;
  return { first: cache.peek<ListPage<T>>(key ?? ''), items, more: Boolean(last && (last.data === undefined || last.data.has_more)) };
}
