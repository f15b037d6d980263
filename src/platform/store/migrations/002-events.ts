import type { Kysely, Migration } from 'kysely';

/**
 * The signal log. Every account has its own gap-free sequence: emitting takes the account row's
 * lock (`UPDATE accounts SET event_seq = event_seq + 1 … RETURNING`), so within an account the
 * order of sequence numbers is the order of commits and a reader never skips a late commit.
 */
export const events: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('accounts').addColumn('event_seq', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema
      .createTable('events')
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('seq', 'bigint', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('resource', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('events_pk', ['account_id', 'seq'])
      .execute();
    await db.schema.createIndex('events_created_idx').on('events').column('created_at').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('events').execute();
    await db.schema.alterTable('accounts').dropColumn('event_seq').execute();
  },
};
