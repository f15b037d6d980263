import type { Kysely, Migration } from 'kysely';

/** TOTP authenticators, the recovery key, the security log; step-up challenges are found by value. */
export const accountSecurity: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('totp_authenticators')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('secret_sealed', 'text', (c) => c.notNull())
      .addColumn('active', 'integer', (c) => c.notNull())
      .addColumn('last_step', 'bigint')
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('confirmed_at', 'bigint')
      .addColumn('last_used_at', 'bigint')
      .execute();
    await db.schema.createIndex('totp_account_idx').on('totp_authenticators').columns(['account_id', 'created_at']).execute();

    await db.schema
      .createTable('recovery_keys')
      .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
      .addColumn('key_sealed', 'text', (c) => c.notNull())
      .addColumn('verifier', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('security_log')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('ip', 'text', (c) => c.notNull())
      .addColumn('location', 'text')
      .addColumn('user_agent', 'text', (c) => c.notNull())
      .addColumn('detail', 'text')
      .execute();
    await db.schema.createIndex('security_log_account_idx').on('security_log').columns(['account_id', 'created_at', 'id']).execute();

    await db.schema.createIndex('ceremonies_challenge_idx').on('ceremonies').column('challenge').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropIndex('ceremonies_challenge_idx').execute();
    for (const table of ['security_log', 'recovery_keys', 'totp_authenticators']) await db.schema.dropTable(table).execute();
  },
};
