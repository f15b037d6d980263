import type { Kysely, Migration } from 'kysely';

/**
 * Address-book passwords (PRODUCT §9): one row per live password, found by its id (which the
 * password carries) and checked against a keyed hash of the whole password; the password itself
 * is never stored. Revoking deletes the row (decision 150): the security log keeps the history.
 */
export const davTokens: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('dav_tokens')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('label', 'text', (c) => c.notNull())
      .addColumn('secret_hash', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_used_at', 'bigint')
      .addColumn('last_user_agent', 'text')
      .execute();
    await db.schema.createIndex('dav_tokens_account_idx').on('dav_tokens').columns(['account_id', 'created_at', 'id']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('dav_tokens').execute();
  },
};
