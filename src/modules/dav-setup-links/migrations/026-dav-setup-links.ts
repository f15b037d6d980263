import type { Kysely, Migration } from 'kysely';

/**
 * Setup links (PRODUCT §9): a single-use link, and a short code to type instead, that hands a new
 * address-book password to a phone. Both are found by keyed hashes and never stored; a link
 * lives ten minutes, and once used it names the password it made, so the page that showed its
 * QR code learns which phone to watch for a first sync.
 */
export const davSetupLinks: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('dav_setup_links')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('label', 'text')
      .addColumn('token_hash', 'text', (c) => c.notNull())
      .addColumn('code_hash', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('used_at', 'bigint')
      .addColumn('dav_token_id', 'text')
      .execute();
    await db.schema.createIndex('dav_setup_links_token_uq').on('dav_setup_links').column('token_hash').unique().execute();
    await db.schema.createIndex('dav_setup_links_code_uq').on('dav_setup_links').column('code_hash').unique().execute();
    await db.schema.createIndex('dav_setup_links_account_idx').on('dav_setup_links').columns(['account_id', 'created_at', 'id']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('dav_setup_links').execute();
  },
};
