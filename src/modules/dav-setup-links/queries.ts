import type { Kysely, Selectable } from 'kysely';
import { keysetPage } from '../../platform/store/keyset.js';
import type { KeysetPosition } from '../../platform/store/keyset.js';
import type { AccountsTable } from '../../platform/store/schema.js';

/** Setup links (026-dav-setup-links). */
export interface DavSetupLinksTable {
  id: string;
  account_id: string;
  label: string | null;
  /** Keyed hashes of the link's token and of its typed code: never the token or the code. */
  token_hash: string;
  code_hash: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  /** The address-book password the link made, once used. */
  dav_token_id: string | null;
}

export type DavSetupLinkRecord = Selectable<DavSetupLinksTable>;

interface DavSetupLinkTables {
  dav_setup_links: DavSetupLinksTable;
  accounts: AccountsTable;
}

export function davSetupLinkQueries(db: Kysely<DavSetupLinkTables>) {
  return {
    async insert(link: DavSetupLinkRecord): Promise<void> {
      await db.insertInto('dav_setup_links').values(link).execute();
    },
    async get(accountId: string, id: string): Promise<DavSetupLinkRecord | undefined> {
      return db.selectFrom('dav_setup_links').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
    },
    /**
     * The link a token or a code names (any of its hashes, one per key of the ring), with what
     * redeeming it decides on: its account's names and lifecycle, in the same statement.
     */
    async findByHash(column: 'token_hash' | 'code_hash', hashes: readonly string[]) {
      return db
        .selectFrom('dav_setup_links')
        .innerJoin('accounts', 'accounts.id', 'dav_setup_links.account_id')
        .select([
          'dav_setup_links.id',
          'dav_setup_links.account_id',
          'dav_setup_links.label',
          'dav_setup_links.expires_at',
          'dav_setup_links.used_at',
          'accounts.username',
          'accounts.deleted_at',
          'accounts.purged_at',
          'accounts.locked_at',
        ])
        .where(`dav_setup_links.${column}`, 'in', hashes)
        .executeTakeFirst();
    },
    /**
     * Marks the link used, only when it is still unused and live: of two phones that open it at
     * once, exactly one gets true (the single use of PRODUCT §9).
     */
    async use(id: string, at: number, davTokenId: string): Promise<boolean> {
      const result = await db
        .updateTable('dav_setup_links')
        .set({ used_at: at, dav_token_id: davTokenId })
        .where('id', '=', id)
        .where('used_at', 'is', null)
        .where('expires_at', '>', at)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    /** Deletes one of the account's links; false when it has none with this id. */
    async remove(accountId: string, id: string): Promise<boolean> {
      const result = await db.deleteFrom('dav_setup_links').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },
    async removeAll(accountId: string): Promise<void> {
      await db.deleteFrom('dav_setup_links').where('account_id', '=', accountId).execute();
    },
    /** Forgets links that ended before `before` (the periodic maintenance). */
    async removeEnded(before: number): Promise<void> {
      await db.deleteFrom('dav_setup_links').where('expires_at', '<', before).execute();
    },
    async list(accountId: string, after: KeysetPosition | undefined, limit: number): Promise<DavSetupLinkRecord[]> {
      return keysetPage(db.selectFrom('dav_setup_links').selectAll().where('account_id', '=', accountId), after, limit).execute();
    },
  };
}
