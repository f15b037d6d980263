import type { SelectQueryBuilder } from 'kysely';
import type { Dialect } from './db.js';

/**
 * A read that locks the rows it finds until the transaction ends: `share` keeps them from being
 * deleted or changed meanwhile (a grant that names a profile), `update` from being locked by
 * anyone else (the delete of that profile). PostgreSQL takes row locks (SELECT … FOR SHARE /
 * FOR UPDATE); SQLite has none and needs none, because it runs one writing transaction at a time.
 */
export function lockingRead<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>, dialect: Dialect, strength: 'share' | 'update'): SelectQueryBuilder<DB, TB, O> {
  if (dialect !== 'postgres') return query;
  return strength === 'share' ? query.forShare() : query.forUpdate();
}
