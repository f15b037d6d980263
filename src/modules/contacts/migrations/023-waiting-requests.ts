import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';

/**
 * Silent refusals (PRODUCT §4, 2026-11-28). A request left waiting ends after 30 days, denied
 * ones and a blocked person's (silenced) alike: the maintenance finds them by status and age each
 * minute, and this index keeps that to the rows due, not a scan of every subscription. And a
 * subscription counts the changes its subscriber must not hear of (a denial, a block lifted), so
 * the version the subscriber reads counts only those it may know of.
 *
 * A denied request now reads pending to its maker until it ends, so it holds the pair as a waiting
 * one does: the one-live-pair index widens to denied and silenced requests. A pair may hold an
 * older denied request beside a newer one (asking again after a denial was allowed): each such
 * older request ends first, as it would have after 30 days.
 */
export const waitingRequests: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('subscriptions').addColumn('silent_changes', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    await sql`update subscriptions set status = 'ended', version = version + 1
      where status = 'denied' and exists (
        select 1 from subscriptions newer
        where newer.owner_id = subscriptions.owner_id and newer.subscriber_id = subscriptions.subscriber_id
          and newer.status in ('pending', 'active', 'denied')
          and (newer.created_at > subscriptions.created_at or (newer.created_at = subscriptions.created_at and newer.id > subscriptions.id)))`.execute(db);
    await db.schema.dropIndex('subscriptions_live_pair_uq').execute();
    // The order matters: queries repeat this condition literally so SQLite uses the index.
    await db.schema
      .createIndex('subscriptions_live_pair_uq')
      .on('subscriptions')
      .columns(['owner_id', 'subscriber_id'])
      .unique()
      .where(sql.ref('status'), 'in', ['pending', 'active', 'denied', 'silenced'])
      .execute();
    await db.schema
      .createIndex('subscriptions_waiting_idx')
      .on('subscriptions')
      .columns(['status', 'created_at'])
      .where(sql.ref('status'), 'in', ['pending', 'denied', 'silenced'])
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropIndex('subscriptions_waiting_idx').execute();
    await db.schema.dropIndex('subscriptions_live_pair_uq').execute();
    await db.schema.createIndex('subscriptions_live_pair_uq').on('subscriptions').columns(['owner_id', 'subscriber_id']).unique().where(sql.ref('status'), 'in', ['pending', 'active']).execute();
    await db.schema.alterTable('subscriptions').dropColumn('silent_changes').execute();
  },
};
