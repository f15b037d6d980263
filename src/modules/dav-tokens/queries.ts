import type { Kysely, Selectable } from 'kysely';
import { keysetPage } from '../../platform/store/keyset.js';
import type { KeysetPosition } from '../../platform/store/keyset.js';
import type { AccountsTable } from '../../platform/store/schema.js';

/** Address-book passwords (014-dav-tokens). */
export interface DavTokensTable {
  id: string;
  account_id: string;
  label: string;
  /** HMAC of the whole password under a key derived from SECRET_KEY: never the password. */
  secret_hash: string;
  created_at: number;
  last_used_at: number | null;
  last_user_agent: string | null;
}

export type DavTokenRecord = Selectable<DavTokensTable>;

interface DavTokenTables {
  dav_tokens: DavTokensTable;
  accounts: AccountsTable;
}

export function davTokenQueries(db: Kysely<DavTokenTables>) {
  return {
    async insert(token: DavTokenRecord): Promise<void> {
      await db.insertInto('dav_tokens').values(token).execute();
    },
    async count(accountId: string): Promise<number> {
      const row = await db
        .selectFrom('dav_tokens')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    /** The account's passwords, oldest first. */
    async list(accountId: string, after: KeysetPosition | undefined, limit: number): Promise<DavTokenRecord[]> {
      return keysetPage(db.selectFrom('dav_tokens').selectAll().where('account_id', '=', accountId), after, limit).execute();
    },
    async ids(accountId: string): Promise<string[]> {
      const rows = await db.selectFrom('dav_tokens').select('id').where('account_id', '=', accountId).execute();
      return rows.map((row) => row.id);
    },
    /** Deletes one of the account's passwords; false when it has none with this id. */
    async remove(accountId: string, id: string): Promise<boolean> {
      const result = await db.deleteFrom('dav_tokens').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },
    /** Deletes every password of the account; the ids of those it deleted. */
    async removeAll(accountId: string): Promise<string[]> {
      const rows = await db.deleteFrom('dav_tokens').where('account_id', '=', accountId).returning('id').execute();
      return rows.map((row) => row.id);
    },
    /**
     * A password by its id, with what authentication decides on: the account's names and
     * lifecycle, read in the same statement (one round trip per request).
     */
    async findForAuthentication(id: string) {
      return db
        .selectFrom('dav_tokens')
        .innerJoin('accounts', 'accounts.id', 'dav_tokens.account_id')
        .select([
          'dav_tokens.id',
          'dav_tokens.account_id',
          'dav_tokens.secret_hash',
          'dav_tokens.last_used_at',
          'accounts.username',
          'accounts.username_canonical',
          'accounts.deleted_at',
          'accounts.purged_at',
          'accounts.locked_at',
        ])
        .where('dav_tokens.id', '=', id)
        .executeTakeFirst();
    },
    /**
     * Stamps a use, only when the last one is older than `staleBefore` (or none): of several
     * requests in the same minute, on any node, at most one writes.
     */
    async touch(id: string, at: number, userAgent: string, staleBefore: number): Promise<void> {
      await db
        .updateTable('dav_tokens')
        .set({ last_used_at: at, last_user_agent: userAgent })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', staleBefore)]))
        .execute();
    },
    /** Replaces a hash made under an older key with the current key's (decision 110), unless it changed meanwhile. */
    async rehash(id: string, from: string, to: string): Promise<void> {
      await db.updateTable('dav_tokens').set({ secret_hash: to }).where('id', '=', id).where('secret_hash', '=', from).execute();
    },
  };
}
