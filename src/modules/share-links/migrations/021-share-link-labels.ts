import type { Kysely, Migration } from 'kysely';

/**
 * A share link's label (PRODUCT §4, §6): the owner's own word for where the link was handed out
 * ("Conference badge"), so a request that came through it says so beside the request and the
 * owner approves it into that link's profile, not the first one listed. Links made before it
 * have none.
 */
export const shareLinkLabels: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('share_links').addColumn('label', 'text').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('share_links').dropColumn('label').execute();
  },
};
