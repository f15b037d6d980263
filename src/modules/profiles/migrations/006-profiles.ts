import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';

/**
 * Profiles and their exposures (PRODUCT §3). Each profile keeps its rendered card (JSON, the
 * hash of what it shows, a strong ETag and when it last changed), re-rendered in the
 * transaction of any change that can alter it, so reading a card is one indexed row.
 */
export const profiles: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('profiles')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('name_key', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('public', 'integer', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('card_json', 'text', (c) => c.notNull())
      .addColumn('card_hash', 'text', (c) => c.notNull())
      .addColumn('card_etag', 'text', (c) => c.notNull())
      .addColumn('card_updated_at', 'bigint', (c) => c.notNull())
      .execute();
    // Names are unique per account ignoring case; at most one public profile per account.
    await db.schema.createIndex('profiles_account_name_uq').on('profiles').columns(['account_id', 'name_key']).unique().execute();
    await db.schema.createIndex('profiles_public_uq').on('profiles').column('account_id').unique().where(sql.ref('public'), '=', 1).execute();
    await db.schema.createIndex('profiles_account_idx').on('profiles').columns(['account_id', 'created_at', 'id']).execute();

    await db.schema
      .createTable('profile_exposures')
      .addColumn('profile_id', 'text', (c) => c.notNull().references('profiles.id').onDelete('cascade'))
      // Deleting a field removes its exposures (PRODUCT §3).
      .addColumn('field_id', 'text', (c) => c.notNull().references('fields.id').onDelete('cascade'))
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('label', 'text')
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('profile_exposures_pk', ['profile_id', 'field_id'])
      .execute();
    await db.schema.createIndex('profile_exposures_field_idx').on('profile_exposures').column('field_id').execute();
    await db.schema.createIndex('profile_exposures_account_idx').on('profile_exposures').columns(['account_id', 'profile_id', 'position']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('profile_exposures').execute();
    await db.schema.dropTable('profiles').execute();
  },
};
