import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';

const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter.constructor.name === 'PostgresAdapter';

/** Accounts, passkeys, sessions and the one-time values they need (challenges, jtis, idempotency). */
export const foundation: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('accounts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('username', 'text', (c) => c.notNull())
      .addColumn('username_canonical', 'text', (c) => c.notNull())
      .addColumn('username_skeleton', 'text', (c) => c.notNull())
      .addColumn('user_handle', 'text', (c) => c.notNull())
      .addColumn('display_name', 'text')
      .addColumn('locale', 'text')
      .addColumn('default_country', 'text')
      .addColumn('region', 'text', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    // The uniqueness rules of the spec live in the database, so concurrent sign-ups cannot both win.
    await db.schema.createIndex('accounts_username_canonical_uq').on('accounts').column('username_canonical').unique().execute();
    await db.schema.createIndex('accounts_username_skeleton_uq').on('accounts').column('username_skeleton').unique().execute();
    await db.schema.createIndex('accounts_user_handle_uq').on('accounts').column('user_handle').unique().execute();

    await db.schema
      .createTable('passkeys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('credential_id', 'text', (c) => c.notNull())
      .addColumn('public_key', 'text', (c) => c.notNull())
      .addColumn('counter', 'bigint', (c) => c.notNull())
      .addColumn('transports', 'text', (c) => c.notNull())
      .addColumn('backup_eligible', 'integer', (c) => c.notNull())
      .addColumn('backed_up', 'integer', (c) => c.notNull())
      .addColumn('aaguid', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('dpop_jkt', 'text', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_used_at', 'bigint')
      .addColumn('flagged_at', 'bigint')
      .execute();
    await db.schema.createIndex('passkeys_credential_id_uq').on('passkeys').column('credential_id').unique().execute();
    await db.schema.createIndex('passkeys_account_idx').on('passkeys').columns(['account_id', 'created_at']).execute();

    await db.schema
      .createTable('sessions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('jkt', 'text', (c) => c.notNull())
      .addColumn('trusted', 'integer', (c) => c.notNull())
      .addColumn('access_hash', 'text')
      .addColumn('access_expires_at', 'bigint', (c) => c.notNull())
      .addColumn('refresh_expires_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
      .addColumn('revoked_at', 'bigint')
      .addColumn('user_agent', 'text', (c) => c.notNull())
      .addColumn('ip', 'text', (c) => c.notNull())
      .addColumn('device_label', 'text', (c) => c.notNull())
      .execute();
    // The hot path: one indexed read per authenticated request.
    await db.schema.createIndex('sessions_access_hash_uq').on('sessions').column('access_hash').unique().execute();
    await db.schema.createIndex('sessions_account_idx').on('sessions').columns(['account_id', 'created_at', 'id']).execute();

    await db.schema
      .createTable('refresh_tokens')
      .addColumn('hash', 'text', (c) => c.primaryKey())
      .addColumn('session_id', 'text', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('used_at', 'bigint')
      .execute();
    await db.schema.createIndex('refresh_tokens_session_idx').on('refresh_tokens').column('session_id').execute();

    await db.schema
      .createTable('ceremonies')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('challenge', 'text', (c) => c.notNull())
      .addColumn('username', 'text')
      .addColumn('user_handle', 'text')
      .addColumn('account_id', 'text')
      .addColumn('session_id', 'text')
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('ceremonies_expires_idx').on('ceremonies').column('expires_at').execute();

    await db.schema
      .createTable('idempotency_records')
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('idem_key', 'text', (c) => c.notNull())
      .addColumn('fingerprint', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('status', 'integer')
      .addColumn('body', 'text')
      .addColumn('headers', 'text')
      .addColumn('locked_until', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('idempotency_records_pk', ['scope', 'idem_key'])
      .execute();
    await db.schema.createIndex('idempotency_expires_idx').on('idempotency_records').column('expires_at').execute();

    // PostgreSQL keeps the DPoP replay cache here, UNLOGGED: written on every authenticated
    // request, never worth a WAL flush (store/dpop-jtis.ts). SQLite keeps it in a side file.
    if (isPostgres(db)) {
      await sql`create unlogged table dpop_jtis (jti_hash text primary key, expires_at bigint not null)`.execute(db);
      await db.schema.createIndex('dpop_jtis_expires_idx').on('dpop_jtis').column('expires_at').execute();
    }
  },
  async down(db: Kysely<any>) {
    if (isPostgres(db)) await db.schema.dropTable('dpop_jtis').execute();
    for (const table of ['idempotency_records', 'ceremonies', 'refresh_tokens', 'sessions', 'passkeys', 'accounts']) {
      await db.schema.dropTable(table).execute();
    }
  },
};
