import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';

/**
 * The account lifecycle (PRODUCT §8): deleted (restorable until purge_at), purged (a tombstone
 * that holds the username until hold_until), released. Partial indexes let the purge job find
 * what is due without reading live accounts.
 */
export const lifecycle: Migration = {
  async up(db: Kysely<any>) {
    for (const column of ['deleted_at', 'purge_at', 'purged_at', 'hold_until']) {
      await db.schema.alterTable('accounts').addColumn(column, 'bigint').execute();
    }
    await db.schema.createIndex('accounts_purge_due_idx').on('accounts').column('purge_at').where(sql.ref('purged_at'), 'is', null).execute();
    await db.schema.createIndex('accounts_hold_idx').on('accounts').column('hold_until').where(sql.ref('hold_until'), 'is not', null).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropIndex('accounts_hold_idx').execute();
    await db.schema.dropIndex('accounts_purge_due_idx').execute();
    for (const column of ['hold_until', 'purged_at', 'purge_at', 'deleted_at']) await db.schema.alterTable('accounts').dropColumn(column).execute();
  },
};
