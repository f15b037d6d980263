import type { SelectQueryBuilder } from 'kysely';
import { refuse } from '../errors.js';

/**
 * Opaque keyset cursors (PRODUCT §0): the position of the last row returned, base64url JSON.
 * Keyset rather than offset paging keeps order stable with no duplicates or gaps while rows
 * are added between pages. Every list of (created_at, id)-ordered rows pages with these.
 */
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
  has_more: boolean;
}

export interface KeysetPosition {
  created_at: number;
  id: string;
}

export function encodeCursor(position: KeysetPosition): string {
  return Buffer.from(JSON.stringify([position.created_at, position.id])).toString('base64url');
}

/**
 * What a decoded cursor must be: the position it names, or undefined when the value is not one
 * of this list's cursors.
 */
export type CursorCheck<P> = (value: unknown) => P | undefined;

/** The cursor of a (created_at, id)-ordered list: a two-element array, a safe integer then an id. */
export const keysetPosition: CursorCheck<KeysetPosition> = (value) =>
  Array.isArray(value) && value.length === 2 && Number.isSafeInteger(value[0]) && typeof value[1] === 'string' && value[1].length <= 64
    ? { created_at: value[0], id: value[1] }
    : undefined;

/** The position a cursor names, checked by `check` (by default a (created_at, id) position); a malformed cursor is 400 invalid_cursor. */
export function decodeCursor(cursor: string | undefined): KeysetPosition | undefined;
export function decodeCursor<P>(cursor: string | undefined, check: CursorCheck<P>): P | undefined;
export function decodeCursor(cursor: string | undefined, check: CursorCheck<unknown> = keysetPosition): unknown {
  if (cursor === undefined) return undefined;
  try {
    const position = check(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
    if (position !== undefined) return position;
  } catch {
    // fall through
  }
  throw refuse('invalid_cursor', 'the cursor is malformed; start again without one');
}

/**
 * Cursors of lists ordered by one unique string key instead of (created_at, id): the author's
 * labels, in the order of their case-folded key. Opaque like the others (base64url JSON, a
 * one-element array, so neither kind of cursor is mistaken for the other).
 */
export function encodeKeyCursor(key: string): string {
  return Buffer.from(JSON.stringify([key])).toString('base64url');
}

/** The cursor of a list ordered by one string key: a one-element array holding a non-empty key of at most 256 characters. */
export const stringKey: CursorCheck<string> = (value) =>
  Array.isArray(value) && value.length === 1 && typeof value[0] === 'string' && value[0].length > 0 && value[0].length <= 256 ? value[0] : undefined;

/**
 * One page of a query over a table with `created_at` and `id`: the rows after `after` (before
 * it, newest first, with order 'desc') in (created_at, id) order, limit rows. Ask for limit + 1
 * and hand the rows to toPage(). `table` qualifies the columns when the query joins; `idColumn`
 * names the tie-breaker when the table's key is not `id`.
 */
export function keysetPage<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  after: KeysetPosition | undefined,
  limit: number,
  options: { order?: 'asc' | 'desc'; table?: string; idColumn?: string } = {},
): SelectQueryBuilder<DB, TB, O> {
  const order = options.order ?? 'asc';
  const beyond = order === 'asc' ? '>' : '<';
  const created = options.table ? `${options.table}.created_at` : 'created_at';
  const idColumn = options.idColumn ?? 'id';
  const id = options.table ? `${options.table}.${idColumn}` : idColumn;
  let q = query as unknown as SelectQueryBuilder<any, any, O>;
  if (after) {
    q = q.where((eb) => eb.or([eb(created, beyond, after.created_at), eb.and([eb(created, '=', after.created_at), eb(id, beyond, after.id)])]));
  }
  return q.orderBy(created, order).orderBy(id, order).limit(limit) as unknown as SelectQueryBuilder<DB, TB, O>;
}

/**
 * Fetch limit + 1 rows and call this: the extra row only says whether another page exists. The
 * next cursor is the last row's position (`cursorOf`, by default its (created_at, id)).
 */
export function toPage<Row extends KeysetPosition, Out>(rows: Row[], limit: number, map: (row: Row) => Out): Page<Out>;
export function toPage<Row, Out>(rows: Row[], limit: number, map: (row: Row) => Out, cursorOf: (last: Row) => string): Page<Out>;
export function toPage<Row, Out>(rows: Row[], limit: number, map: (row: Row) => Out, cursorOf: (last: Row) => string = encodeCursor as unknown as (last: Row) => string): Page<Out> {
  const has_more = rows.length > limit;
  const pageRows = has_more ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return { data: pageRows.map(map), next_cursor: has_more && last !== undefined ? cursorOf(last) : null, has_more };
}

/**
 * One page of a (created_at, id)-ordered list: the cursor decoded (400 invalid_cursor when
 * malformed), one row more than the limit read to tell whether more follow, the rows mapped.
 */
export async function page<Row extends KeysetPosition, Out>(
  read: (after: KeysetPosition | undefined, limit: number) => Promise<Row[]>,
  cursor: string | undefined,
  limit: number,
  map: (row: Row) => Out,
): Promise<Page<Out>> {
  const after = decodeCursor(cursor);
  return toPage(await read(after, limit + 1), limit, map);
}

/** A position in a list held in order: numbers and strings compared member by member. */
export type ListPosition = ReadonlyArray<number | string>;

function comparePositions(a: ListPosition, b: ListPosition): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const [x, y] = [a[i], b[i]];
    if (x === y) continue;
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

/** The cursor of a list ordered by `shape` (a tuple of numbers and strings, each string at most 256 characters). */
export function listPosition(shape: ReadonlyArray<'number' | 'string'>): CursorCheck<ListPosition> {
  return (value) =>
    Array.isArray(value) &&
    value.length === shape.length &&
    value.every((member, i) => (shape[i] === 'number' ? Number.isSafeInteger(member) : typeof member === 'string' && member.length <= 256))
      ? (value as ListPosition)
      : undefined;
}

/**
 * One page of a list held in memory in a stable order (the field catalogue, a profile's
 * exposures), paged like every other list (PRODUCT §0): the items after the cursor's position,
 * at most `limit`. The cursor is a position, not an offset, so an item added or removed before
 * it neither repeats nor skips one after it. `items` are in the order `positionOf` defines.
 */
export function pageOfList<T>(items: readonly T[], cursor: string | undefined, limit: number, positionOf: (item: T) => ListPosition, shape: CursorCheck<ListPosition>): Page<T> {
  const after = decodeCursor(cursor, shape);
  const rest = after === undefined ? items : items.filter((item) => comparePositions(positionOf(item), after) > 0);
  return toPage(rest.slice(0, limit + 1), limit, (item) => item, (last) => Buffer.from(JSON.stringify(positionOf(last))).toString('base64url'));
}

/**
 * Every page of a keyset-ordered read, one after another (the account export): `fetch` answers
 * the rows after a position; a page shorter than `size` is the last. Only one page is in memory
 * at a time.
 */
export async function* keysetPages<Row>(fetch: (after: KeysetPosition | undefined, limit: number) => Promise<Row[]>, positionOf: (row: Row) => KeysetPosition, size = 500): AsyncGenerator<Row[]> {
  let after: KeysetPosition | undefined;
  for (;;) {
    const rows = await fetch(after, size);
    if (rows.length > 0) yield rows;
    if (rows.length < size) return;
    after = positionOf(rows[rows.length - 1]!);
  }
}
