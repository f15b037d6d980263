import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { SealedColumn } from '../crypto/sealed-columns.js';

/**
 * A value not sealed under the current key: its prefix differs. Compared exactly (substr), not
 * with LIKE, which SQLite folds to one case and key ids are case-sensitive base64url.
 */
const notUnder = (column: string, prefix: string) => sql<boolean>`substr(${sql.ref(column)}, 1, ${prefix.length}) <> ${prefix}`;

export type SealedRow = { key: unknown[]; value: string };

/**
 * The rotation's SQL over any declared sealed column (decision 110). Table and column names
 * come from module declarations, never from input, and go through sql.ref / sql.table.
 */
export function resealQueries(db: Kysely<any>) {
  return {
    /** Up to `limit` rows whose value is not under the current key (`currentPrefix`). */
    async notCurrent(column: SealedColumn, currentPrefix: string, limit: number): Promise<SealedRow[]> {
      const rows = await db
        .selectFrom(column.table)
        .select([...column.key.map((k) => sql.ref(k).as(`k_${k}`)), sql.ref(column.column).as('value')])
        .where(sql.ref(column.column), 'is not', null)
        .where(notUnder(column.column, currentPrefix))
        .orderBy(column.key.map((k) => sql.ref(k)) as any)
        .limit(limit)
        .execute();
      return rows.map((row: Record<string, unknown>) => ({ key: column.key.map((k) => row[`k_${k}`]), value: row.value as string }));
    },
    /** Replaces one value (and its keyed hash) only if it is still the one read: a concurrent write wins. */
    async replace(column: SealedColumn, row: SealedRow, value: string, hash: string | undefined): Promise<boolean> {
      const set: Record<string, string> = { [column.column]: value };
      if (column.hash && hash !== undefined) set[column.hash.column] = hash;
      let update = db.updateTable(column.table).set(set).where(sql.ref(column.column), '=', row.value);
      column.key.forEach((k, i) => {
        update = update.where(sql.ref(k), '=', row.key[i]);
      });
      const result = await update.executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    /** How many values of the column are still under another key. */
    async countNotCurrent(column: SealedColumn, currentPrefix: string): Promise<number> {
      const row = await db
        .selectFrom(column.table)
        .select((eb) => eb.fn.countAll().as('n'))
        .where(sql.ref(column.column), 'is not', null)
        .where(notUnder(column.column, currentPrefix))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}
