import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';

/**
 * The card-change log (decision 180): one row each time what an audience sees of an owner
 * changes. A row names either a profile (everyone who receives that profile's card: an edit, the
 * owner's account going or coming back) or one subscriber (its own view of the owner: approved,
 * moved, revoked, unsubscribed), never both. Rows are numbered
 * from the one-row head table in commit order, so "after n" never skips a row that commits
 * late. Append-only: nothing is pruned, so every number handed out stays a valid position.
 */
export const cardChangeLog: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('card_change_log')
      .addColumn('seq', 'bigint', (c) => c.primaryKey())
      .addColumn('owner_id', 'text', (c) => c.notNull())
      .addColumn('profile_id', 'text')
      .addColumn('subscriber_id', 'text')
      .addColumn('changed_at', 'bigint', (c) => c.notNull())
      .addCheckConstraint('card_change_log_one_audience', sql`(profile_id is null) <> (subscriber_id is null)`)
      .execute();
    // What a subscriber's sync reads: the newest rows of each profile it receives, and its own rows.
    await db.schema.createIndex('card_change_log_profile_idx').on('card_change_log').columns(['profile_id', 'seq']).execute();
    await db.schema.createIndex('card_change_log_subscriber_idx').on('card_change_log').columns(['subscriber_id', 'seq']).execute();
    await db.schema.createIndex('card_change_log_owner_idx').on('card_change_log').columns(['owner_id', 'seq']).execute();

    // The newest number handed out; its row is the appenders' lock (held until commit).
    await db.schema
      .createTable('card_change_log_head')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('seq', 'bigint', (c) => c.notNull())
      .addCheckConstraint('card_change_log_head_one_row', sql`id = 1`)
      .execute();
    await db.insertInto('card_change_log_head').values({ id: 1, seq: 0 }).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('card_change_log_head').execute();
    await db.schema.dropTable('card_change_log').execute();
  },
};
