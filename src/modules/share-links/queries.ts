import type { Kysely, Selectable } from 'kysely';
import { keysetPage } from '../../platform/store/keyset.js';
import type { KeysetPosition } from '../../platform/store/keyset.js';
import type { AccountsTable } from '../../platform/store/schema.js';

/** Share links (008-share-links). */
export interface ShareLinksTable {
  id: string;
  owner_id: string;
  profile_id: string;
  /** HMAC of the token under a key derived from SECRET_KEY: how a token is found. */
  token_hash: string;
  /** The token, sealed, so the owner can show its QR code again. */
  token_sealed: string;
  expires_at: number | null;
  max_uses: number | null;
  uses: number;
  auto_approve: number;
  created_at: number;
  revoked_at: number | null;
  /** The owner's word for where the link was handed out (021-share-link-labels); null: none. */
  label: string | null;
}

export type ShareLinkRecord = Selectable<ShareLinksTable>;

interface ShareLinkTables {
  share_links: ShareLinksTable;
  accounts: AccountsTable;
}

export function shareLinkQueries(db: Kysely<ShareLinkTables>) {
  return {
    async insert(link: ShareLinkRecord): Promise<void> {
      await db.insertInto('share_links').values(link).execute();
    },
    /** The owner's links that are not revoked, oldest first. */
    async list(ownerId: string, after: KeysetPosition | undefined, limit: number): Promise<ShareLinkRecord[]> {
      return keysetPage(db.selectFrom('share_links').selectAll().where('owner_id', '=', ownerId).where('revoked_at', 'is', null), after, limit).execute();
    },
    /** Every link of the owner, revoked ones too (the export). */
    async all(ownerId: string, after: KeysetPosition | undefined, limit: number): Promise<ShareLinkRecord[]> {
      return keysetPage(db.selectFrom('share_links').selectAll().where('owner_id', '=', ownerId), after, limit).execute();
    },
    async removeAll(ownerId: string): Promise<void> {
      await db.deleteFrom('share_links').where('owner_id', '=', ownerId).execute();
    },
    async find(ownerId: string, id: string): Promise<ShareLinkRecord | undefined> {
      return db.selectFrom('share_links').selectAll().where('id', '=', id).where('owner_id', '=', ownerId).executeTakeFirst();
    },
    /** A link by its token's keyed hash, with its owner's name and state (never the profile's name: PRODUCT §6). */
    async findByHash(tokenHashes: readonly string[]) {
      return db
        .selectFrom('share_links')
        .innerJoin('accounts', 'accounts.id', 'share_links.owner_id')
        .selectAll('share_links')
        .select(['accounts.username', 'accounts.display_name', 'accounts.deleted_at as owner_deleted_at', 'accounts.locked_at as owner_locked_at'])
        .where('share_links.token_hash', 'in', tokenHashes)
        .executeTakeFirst();
    },
    async revoke(ownerId: string, id: string, at: number): Promise<boolean> {
      const result = await db.updateTable('share_links').set({ revoked_at: at }).where('id', '=', id).where('owner_id', '=', ownerId).where('revoked_at', 'is', null).executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    /**
     * Counts one use in one statement, only while the link is live (not revoked, not expired,
     * not used up): of twenty concurrent redeems of a one-use link, exactly one passes.
     */
    async takeUse(id: string, now: number): Promise<ShareLinkRecord | undefined> {
      return db
        .updateTable('share_links')
        .set((eb) => ({ uses: eb('uses', '+', 1) }))
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
        .where((eb) => eb.or([eb('max_uses', 'is', null), eb('uses', '<', eb.ref('max_uses'))]))
        .returningAll()
        .executeTakeFirst();
    },
    /** A profile is going: its links follow its subscribers to another profile. */
    async moveProfile(ownerId: string, fromProfile: string, toProfile: string): Promise<void> {
      await db.updateTable('share_links').set({ profile_id: toProfile }).where('owner_id', '=', ownerId).where('profile_id', '=', fromProfile).execute();
    },
  };
}
