import type { Kysely, Migration } from 'kysely';

/**
 * Keys (PRODUCT §7): client-made key material the server stores and never reads. One bundle per
 * passkey (a device), gone with its passkey by foreign key whatever removes it (the owner, the
 * purge); and the account's server share of a split secret.
 */
export const keys: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('key_bundles')
      // Opaque (key_…): what contacts see, so a bundle never tells them the passkey's id.
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('method_id', 'text', (c) => c.notNull().references('passkeys.id').onDelete('cascade'))
      .addColumn('bundle', 'text', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    // One bundle per passkey: of two racing first PUTs one inserts, the other is told to send If-Match.
    await db.schema.createIndex('key_bundles_method_uq').on('key_bundles').column('method_id').unique().execute();
    // The owner's list, a contact's list and the export: one index range in (created_at, id) order.
    await db.schema.createIndex('key_bundles_account_idx').on('key_bundles').columns(['account_id', 'created_at', 'id']).execute();

    await db.schema
      .createTable('key_shares')
      .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
      .addColumn('share', 'text', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('key_shares').execute();
    await db.schema.dropTable('key_bundles').execute();
  },
};
