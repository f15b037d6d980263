import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';

/**
 * Photos (PRODUCT §2, 2026-11-28): the server's own re-encodings of an uploaded image, never the
 * upload. Kept in the database with the rest of the account, so a backup or restore carries them
 * and the purge erases them with the account (ON DELETE CASCADE). Binary columns: bytea on
 * PostgreSQL, blob on SQLite.
 */
export const photos: Migration = {
  async up(db: Kysely<any>) {
    const binary = db.getExecutor().adapter.constructor.name === 'PostgresAdapter' ? sql`bytea` : sql`blob`;
    await db.schema
      .createTable('photos')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      // JPEG squares of 64, 256 and 512 px (processing.ts).
      .addColumn('jpeg_64', binary, (c) => c.notNull())
      .addColumn('jpeg_256', binary, (c) => c.notNull())
      .addColumn('jpeg_512', binary, (c) => c.notNull())
      // A digest of the three, the strong entity tag of each size (with the size).
      .addColumn('digest', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    // The owner's list and the export, in (created_at, id) order; the count per account.
    await db.schema.createIndex('photos_account_idx').on('photos').columns(['account_id', 'created_at', 'id']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('photos').execute();
  },
};
