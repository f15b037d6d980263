import type { Kysely, Selectable } from 'kysely';
import type { AccountsTable, Database } from './schema.js';

export type AccountRecord = Omit<Selectable<AccountsTable>, 'event_seq'>;

export interface AccountProfilePatch {
  display_name?: string | null;
  locale?: string | null;
  default_country?: string | null;
}

export function accountQueries(db: Kysely<Database>) {
  return {
    async insert(account: AccountRecord): Promise<void> {
      await db.insertInto('accounts').values(account).execute();
    },
    async findById(id: string): Promise<AccountRecord | undefined> {
      return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
    },
    async findByCanonical(canonical: string): Promise<AccountRecord | undefined> {
      return db.selectFrom('accounts').selectAll().where('username_canonical', '=', canonical).executeTakeFirst();
    },
    /** Is the canonical name or its confusable skeleton already held (UTS #39 §4)? */
    async findClash(canonical: string, skeleton: string): Promise<'taken' | 'confusable' | undefined> {
      const row = await db
        .selectFrom('accounts')
        .select(['username_canonical'])
        .where((eb) => eb.or([eb('username_canonical', '=', canonical), eb('username_skeleton', '=', skeleton)]))
        .executeTakeFirst();
      if (!row) return undefined;
      return row.username_canonical === canonical ? 'taken' : 'confusable';
    },
    /** Compare-and-swap on version (If-Match): undefined when the version moved meanwhile. */
    async updateProfile(id: string, expectedVersion: number, patch: AccountProfilePatch): Promise<AccountRecord | undefined> {
      return db
        .updateTable('accounts')
        .set({ ...patch, version: expectedVersion + 1 })
        .where('id', '=', id)
        .where('version', '=', expectedVersion)
        .returningAll()
        .executeTakeFirst();
    },
  };
}
