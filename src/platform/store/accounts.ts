import type { Kysely, Selectable } from 'kysely';
import { statement } from './statement.js';
import type { Param } from './statement.js';
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
 * the session's), as a plain AccountRecord: an object literal written out, which costs what it
 * costs to copy 18 values (a copy loop over the names, or an object rest, is several times
 * slower, on the lookup every authenticated request makes). A column added to AccountsTable and
 * not here does not compile (the return type names every column).
 */
export function accountOf(row: AccountRecord): AccountRecord {
  return {
    id: row.id,
    username: row.username,
    username_canonical: row.username_canonical,
    username_skeleton: row.username_skeleton,
    username_skeleton_upper: row.username_skeleton_upper,
    user_handle: row.user_handle,
    display_name: row.display_name,
    locale: row.locale,
    default_country: row.default_country,
    region: row.region,
    version: row.version,
    created_at: row.created_at,
    deleted_at: row.deleted_at,
    purge_at: row.purge_at,
    purged_at: row.purged_at,
    hold_until: row.hold_until,
    locked_at: row.locked_at,
    lock_reason: row.lock_reason,
  };
}

/**
 * A new account row: its names and who it is, the rest as a new account has it (no display
 * name, nothing deleted, locked or purged). Sign-up makes people's; the regions module makes
 * stand-ins for people of other regions (decision 352).
 */
export function newAccount(who: Pick<AccountRecord, 'id' | 'username' | 'username_canonical' | 'username_skeleton' | 'username_skeleton_upper' | 'user_handle' | 'region' | 'version' | 'created_at'> & { display_name?: string | null }): AccountRecord {
  return {
    display_name: null,
    locale: null,
    default_country: null,
    deleted_at: null,
    purge_at: null,
    purged_at: null,
    hold_until: null,
    locked_at: null,
    lock_reason: null,
    ...who,
  };
}

// The hot reads of the account (a login reads it by id, a sign-in by its name): statements built
// once per process (statement.ts), each the plain select of every column by a unique key.
export const accountById = statement('account by id', (db: Kysely<PlatformTables>, p: Param<{ id: string }>) =>
  db.selectFrom('accounts').select(ACCOUNT_COLUMNS).where('id', '=', p('id')),
);
export const accountByCanonical = statement('account by canonical name', (db: Kysely<PlatformTables>, p: Param<{ canonical: string }>) =>
  db.selectFrom('accounts').select(ACCOUNT_COLUMNS).where('username_canonical', '=', p('canonical')),
);

/** Reads and the insert of the account row itself; a module that changes its columns keeps that SQL. */
export function accountQueries(db: Kysely<PlatformTables>) {
  return {
    async insert(account: AccountRecord): Promise<void> {
      await db.insertInto('accounts').values(account).execute();
    },
    findById: (id: string): Promise<AccountRecord | undefined> => accountById.first(db, { id }),
    findByCanonical: (canonical: string): Promise<AccountRecord | undefined> => accountByCanonical.first(db, { canonical }),
  };
}

export type AccountQueries = ReturnType<typeof accountQueries>;
