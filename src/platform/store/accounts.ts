import type { Kysely, Selectable } from 'kysely';
import { preparedQuery } from './prepared.js';
import type { AccountsTable, PlatformTables } from './schema.js';

/** The account row every module refers to. */
export type AccountRecord = Selectable<AccountsTable>;

/** Every column of AccountsTable, each once: one missing here, or unknown to it, does not compile. */
const everyAccountColumn: { [Column in keyof AccountsTable]-?: true } = {
  id: true,
  username: true,
  username_canonical: true,
  username_skeleton: true,
  username_skeleton_upper: true,
  user_handle: true,
  display_name: true,
  locale: true,
  default_country: true,
  region: true,
  version: true,
  created_at: true,
  deleted_at: true,
  purge_at: true,
  purged_at: true,
  hold_until: true,
  locked_at: true,
  lock_reason: true,
};

/**
 * The account's columns, written once: every query that reads the account a request, a renewal
 * or a login acts as selects exactly these (a column added to the table is added above, and
 * every such query reads it).
 */
export const ACCOUNT_COLUMNS = Object.freeze(Object.keys(everyAccountColumn)) as ReadonlyArray<keyof AccountsTable>;

/**
 * The account out of a wider row that holds its columns (the authentication lookup joins them to
 * the session's), as a plain AccountRecord. Built once from ACCOUNT_COLUMNS as an object literal,
 * so it costs what a literal written out by hand costs: a copy loop over the names or an object
 * rest is several times slower, on the lookup every authenticated request makes.
 */
export const accountOf: (row: AccountRecord) => AccountRecord = (() => {
  for (const column of ACCOUNT_COLUMNS) if (!/^[a-z_][a-z0-9_]*$/.test(column)) throw new Error(`not a column name: ${column}`);
  return new Function('row', `return { ${ACCOUNT_COLUMNS.map((column) => `${column}: row.${column}`).join(', ')} };`) as (row: AccountRecord) => AccountRecord;
})();

/** Reads and the insert of the account row itself; a module that changes its columns keeps that SQL. */
export function accountQueries(db: Kysely<PlatformTables>) {
  // Built and compiled on first use, not on every call (a login reads its account by id): the
  // select of every column cost more to build than SQLite to answer. On the store's own handle
  // the read goes straight to the statement (prepared.ts); in a transaction, through it.
  const byId = preparedQuery(db, (id: string) => db.selectFrom('accounts').select(ACCOUNT_COLUMNS).where('id', '=', id), 1);
  const byCanonical = preparedQuery(db, (canonical: string) => db.selectFrom('accounts').select(ACCOUNT_COLUMNS).where('username_canonical', '=', canonical), 1);
  return {
    async insert(account: AccountRecord): Promise<void> {
      await db.insertInto('accounts').values(account).execute();
    },
    async findById(id: string): Promise<AccountRecord | undefined> {
      return (await byId(id))[0];
    },
    async findByCanonical(canonical: string): Promise<AccountRecord | undefined> {
      return (await byCanonical(canonical))[0];
    },
  };
}

export type AccountQueries = ReturnType<typeof accountQueries>;
