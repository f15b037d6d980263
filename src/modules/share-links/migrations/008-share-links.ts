import type { Kysely, Migration } from 'kysely';

/**
 * Share links (PRODUCT §6): a token that lets someone subscribe to one profile. The token is
 * found by a keyed hash and kept sealed, so the owner can show its QR code again while a copy
 * of the database alone reveals none.
 */
export const shareLinks: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('share_links')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('owner_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('profile_id', 'text', (c) => c.notNull().references('profiles.id').onDelete('cascade'))
      .addColumn('token_hash', 'text', (c) => c.notNull())
      .addColumn('token_sealed', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'bigint')
      .addColumn('max_uses', 'integer')
      .addColumn('uses', 'integer', (c) => c.notNull())
      .addColumn('auto_approve', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('revoked_at', 'bigint')
      .execute();
    await db.schema.createIndex('share_links_token_uq').on('share_links').column('token_hash').unique().execute();
    await db.schema.createIndex('share_links_owner_idx').on('share_links').columns(['owner_id', 'created_at', 'id']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('share_links').execute();
  },
};
