import type { Kysely, Migration } from 'kysely';

/**
 * Account locks (docs/decisions/090-account-locks.md): an operator stops an account at once.
 * `locked_at` is read by the authentication lookup that every request already makes, so a lock
 * costs no extra query; the reason is for operators and never shown to anyone else.
 */
export const accountLocks: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('accounts').addColumn('locked_at', 'bigint').execute();
    await db.schema.alterTable('accounts').addColumn('lock_reason', 'text').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('accounts').dropColumn('lock_reason').execute();
    await db.schema.alterTable('accounts').dropColumn('locked_at').execute();
  },
};
