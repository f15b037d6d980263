import type { Kysely, Selectable } from 'kysely';
import type { AccountsTable, PlatformTables } from './schema.js';

/** The account row every module refers to. */
export type AccountRecord = Selectable<AccountsTable>;

/** Reads and the insert of the account row itself; a module that changes its columns keeps that SQL. */
export function accountQueries(db: Kysely<PlatformTables>) {
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
  };
}

export type AccountQueries = ReturnType<typeof accountQueries>;
