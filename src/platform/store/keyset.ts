import { AppError } from '../errors.js';

/**
 * Opaque keyset cursors (PRODUCT §0): the position of the last row returned, base64url JSON.
 * Keyset rather than offset paging keeps order stable with no duplicates or gaps while rows
 * are added between pages.
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

export function decodeCursor(cursor: string | undefined): KeysetPosition | undefined {
  if (cursor === undefined) return undefined;
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && Number.isSafeInteger(value[0]) && typeof value[1] === 'string' && value[1].length <= 64) {
      return { created_at: value[0], id: value[1] };
    }
  } catch {
    // fall through
  }
  throw new AppError(400, 'invalid_cursor', 'Invalid cursor', { detail: 'the cursor is malformed; start again without one' });
}

/** Fetch limit + 1 rows and call this: the extra row only says whether another page exists. */
export function toPage<Row extends KeysetPosition, Out>(rows: Row[], limit: number, map: (row: Row) => Out): Page<Out> {
  const has_more = rows.length > limit;
  const pageRows = has_more ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return { data: pageRows.map(map), next_cursor: has_more && last ? encodeCursor(last) : null, has_more };
}
