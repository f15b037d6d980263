import type { Kysely, Migration } from 'kysely';

/** Join codes and join attempts (spec: States and transitions), shared by every node. */
export const join: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('join_codes')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('session_id', 'text', (c) => c.notNull())
      .addColumn('code_hash', 'text', (c) => c.notNull())
      .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('used_at', 'bigint')
      .addColumn('voided_at', 'bigint')
      .execute();
    await db.schema.createIndex('join_codes_account_idx').on('join_codes').columns(['account_id', 'expires_at']).execute();
    await db.schema.createIndex('join_codes_session_idx').on('join_codes').column('session_id').execute();

    await db.schema
      .createTable('join_attempts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('via', 'text', (c) => c.notNull())
      .addColumn('jkt', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('challenge', 'text')
      .addColumn('ip', 'text', (c) => c.notNull())
      .addColumn('location', 'text')
      .addColumn('user_agent', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('decided_at', 'bigint')
      .addColumn('decided_by', 'text')
      .addColumn('finished_at', 'bigint')
      .execute();
    await db.schema.createIndex('join_attempts_account_idx').on('join_attempts').columns(['account_id', 'status', 'created_at']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('join_attempts').execute();
    await db.schema.dropTable('join_codes').execute();
  },
};
