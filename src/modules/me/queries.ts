import type { Kysely } from 'kysely';
import type { AccountRecord } from '../../platform/store/accounts.js';
import type { PlatformTables } from '../../platform/store/schema.js';

export interface ProfilePatch {
  display_name?: string | null;
  locale?: string | null;
  default_country?: string | null;
}

/** The columns of the account row a person edits through /me. */
export function meQueries(db: Kysely<Pick<PlatformTables, 'accounts'>>) {
  return {
    /** The account's version as committed now (the request's own copy was read at authentication). */
    async version(id: string): Promise<number | undefined> {
      const row = await db.selectFrom('accounts').select('version').where('id', '=', id).executeTakeFirst();
      return row?.version;
    },
    /** Compare-and-swap on version (If-Match): undefined when the version moved meanwhile. */
    async update(id: string, expectedVersion: number, patch: ProfilePatch): Promise<AccountRecord | undefined> {
      const row = await db
        .updateTable('accounts')
        .set({ ...patch, version: expectedVersion + 1 })
        .where('id', '=', id)
        .where('version', '=', expectedVersion)
        .returningAll()
        .executeTakeFirst();
      return row;
    },
  };
}
