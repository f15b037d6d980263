import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { AccountRecord } from '../../platform/store/accounts.js';
import type { PlatformTables } from '../../platform/store/schema.js';

/** What a released username becomes: no name can take this form (usernames have no '~'). */
export const RELEASED_USERNAME = '(deleted account)';

/** The account row through its lifecycle (PRODUCT §8) and the platform's rows about it. */
export function lifecycleQueries(db: Kysely<PlatformTables>) {
  return {
    /** Deletes (restorably): only an account that is not deleted already. */
    async markDeleted(accountId: string, at: number, purgeAt: number): Promise<AccountRecord | undefined> {
      const row = await db
        .updateTable('accounts')
        .set((eb) => ({ deleted_at: at, purge_at: purgeAt, version: eb('version', '+', 1) }))
        .where('id', '=', accountId)
        .where('deleted_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
      return row;
    },
    /** Restores: only a deleted account the purge has not reached. */
    async markRestored(accountId: string): Promise<AccountRecord | undefined> {
      const row = await db
        .updateTable('accounts')
        .set((eb) => ({ deleted_at: null, purge_at: null, version: eb('version', '+', 1) }))
        .where('id', '=', accountId)
        .where('deleted_at', 'is not', null)
        .where('purged_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
      return row;
    },
    /** Locks (an operator's act): only an account not locked already and not purged. */
    async markLocked(accountId: string, at: number, reason: string): Promise<AccountRecord | undefined> {
      return db
        .updateTable('accounts')
        .set((eb) => ({ locked_at: at, lock_reason: reason, version: eb('version', '+', 1) }))
        .where('id', '=', accountId)
        .where('locked_at', 'is', null)
        .where('purged_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
    },
    /** Unlocks: only a locked account. */
    async markUnlocked(accountId: string): Promise<AccountRecord | undefined> {
      return db
        .updateTable('accounts')
        .set((eb) => ({ locked_at: null, lock_reason: null, version: eb('version', '+', 1) }))
        .where('id', '=', accountId)
        .where('locked_at', 'is not', null)
        .returningAll()
        .executeTakeFirst();
    },
    /** Deleted accounts whose grace is over, oldest due first (the partial index on purge_at). */
    async dueForPurge(now: number, limit: number): Promise<string[]> {
      const rows = await db.selectFrom('accounts').select('id').where('purged_at', 'is', null).where('purge_at', '<=', now).orderBy('purge_at').orderBy('id').limit(limit).execute();
      return rows.map((row) => row.id);
    },
    /**
     * Claims one due account for the purge and turns its row into the tombstone, in one
     * conditional update: of several nodes racing for it exactly one gets the row. Only the
     * canonical username (shown as the name) and its comparison keys stay, until `holdUntil`.
     */
    async claimForPurge(accountId: string, now: number, holdUntil: number, userHandle: string): Promise<boolean> {
      const result = await db
        .updateTable('accounts')
        .set((eb) => ({
          username: eb.ref('username_canonical'),
          display_name: null,
          locale: null,
          default_country: null,
          user_handle: userHandle,
          created_at: now,
          purged_at: now,
          hold_until: holdUntil,
          // Free text an operator wrote about the person: personal data, erased with the rest.
          lock_reason: null,
          version: eb('version', '+', 1),
        }))
        .where('id', '=', accountId)
        .where('purged_at', 'is', null)
        .where('purge_at', '<=', now)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    /** Frees the names whose hold is over: the tombstone keeps only its id. */
    async releaseHolds(now: number): Promise<number> {
      const result = await db
        .updateTable('accounts')
        .set({
          username: RELEASED_USERNAME,
          username_canonical: sql<string>`'~' || id`,
          username_skeleton: sql<string>`'~' || id`,
          username_skeleton_upper: null,
          hold_until: null,
        })
        .where('hold_until', '<=', now)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
    /** The purge: the account's signals, pending ceremonies and idempotency records. */
    async removePlatformRows(accountId: string): Promise<void> {
      await db.deleteFrom('events').where('account_id', '=', accountId).execute();
      await db.deleteFrom('ceremonies').where('account_id', '=', accountId).execute();
      // Scopes end with the principal (`… acc:<id>`); LIKE with '_' escaped, ids contain it.
      const escaped = `acc:${accountId}`.replace(/[\\%_]/g, (c) => `\\${c}`);
      await db.deleteFrom('idempotency_records').where(sql<boolean>`scope like ${`% ${escaped}`} escape '\\'`).execute();
    },
  };
}
