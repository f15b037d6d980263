import type { Kysely, Migration } from 'kysely';

/**
 * What a request says of the share link it came through (PRODUCT §4, 2026-11-28): the owner's
 * label for the link, copied when the request is made (a label never changes afterwards, and
 * the request keeps saying where it came from after the link is revoked), and the profile the
 * link gives, which the owner's client preselects when approving. The suggestion follows a
 * profile's delete with move_to like the profile's subscribers, and is cleared by a delete
 * without it. Requests made before it suggest nothing.
 */
export const requestLinks: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('subscriptions').addColumn('share_link_label', 'text').execute();
    await db.schema.alterTable('subscriptions').addColumn('suggested_profile_id', 'text', (c) => c.references('profiles.id').onDelete('set null')).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('subscriptions').dropColumn('suggested_profile_id').execute();
    await db.schema.alterTable('subscriptions').dropColumn('share_link_label').execute();
  },
};
