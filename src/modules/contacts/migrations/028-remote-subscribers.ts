import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';

/**
 * Following across regions (PRODUCT §10, decision 352). A subscription one of whose two people
 * lives in another region is held in both: the owner's region keeps the subscription (its
 * subscriber a stand-in account named `username@region`), the subscriber's region keeps the
 * contact (its owner such a stand-in), under the same id.
 *
 * - `subscriber_region`: on the owner's side, the region of a subscriber from elsewhere (null for
 *   one of this region). With the partial index, "does profile P have active followers in region
 *   R" is one index probe, so an edit costs one probe per peer region, whatever the audience.
 * - `remote_version`: on the subscriber's side, the owner region's version of the row last
 *   applied; a delivery that is not newer changes nothing (deliveries may arrive twice, or late).
 */
export const remoteSubscribers: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('subscriptions').addColumn('subscriber_region', 'text').execute();
    await db.schema.alterTable('subscriptions').addColumn('remote_version', 'integer').execute();
    await db.schema
      .createIndex('subscriptions_remote_audience_idx')
      .on('subscriptions')
      .columns(['profile_id', 'subscriber_region'])
      .where(sql.ref('subscriber_region'), 'is not', null)
      .where(sql.ref('status'), '=', 'active')
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropIndex('subscriptions_remote_audience_idx').execute();
    await db.schema.alterTable('subscriptions').dropColumn('remote_version').execute();
    await db.schema.alterTable('subscriptions').dropColumn('subscriber_region').execute();
  },
};
