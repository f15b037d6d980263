import type { Kysely, Migration } from 'kysely';

/** Identity fields (PRODUCT §2): typed, versioned values of a person, normalised JSON plus what was typed. */
export const identityFields: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('fields')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('label', 'text')
      .addColumn('country', 'text')
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('input', 'text')
      .addColumn('details', 'text', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    // Keyset paging of one account's fields, and its per-type lookups (single-valued types).
    await db.schema.createIndex('fields_account_idx').on('fields').columns(['account_id', 'created_at', 'id']).execute();
    await db.schema.createIndex('fields_account_type_idx').on('fields').columns(['account_id', 'type']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('fields').execute();
  },
};
