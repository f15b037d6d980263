import type { Kysely, Migration } from 'kysely';

/**
 * Card changes waiting for their position (decision 342). On PostgreSQL a change's transaction
 * writes its rows here, with no lock shared with any other change, and after its commit the
 * sequencer moves every committed row into card_change_log, numbered from the head in one short
 * transaction per batch: the head's row is held by the sequencer alone, never from a change's
 * append to its commit. On SQLite (one writer) changes append to the log directly and this
 * table stays empty.
 *
 * `id` orders the rows of one batch: an owner's changes take its account lock, so they insert
 * here in the order they commit.
 */
export const cardChangePending: Migration = {
  async up(db: Kysely<any>) {
    const postgres = db.getExecutor().adapter.constructor.name === 'PostgresAdapter';
    await db.schema
      .createTable('card_change_pending')
      // PostgreSQL numbers by an identity column; SQLite's integer primary key is its rowid.
      .addColumn('id', postgres ? 'bigint' : 'integer', (c) => (postgres ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey()))
      .addColumn('owner_id', 'text', (c) => c.notNull())
      .addColumn('profile_id', 'text')
      .addColumn('subscriber_id', 'text')
      .addColumn('changed_at', 'bigint', (c) => c.notNull())
      .addColumn('edited', 'smallint', (c) => c.notNull().defaultTo(0))
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('card_change_pending').execute();
  },
};
