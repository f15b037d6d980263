import type { Kysely, Selectable } from 'kysely';
import { keysetPage } from '../../platform/store/keyset.js';
import type { KeysetPosition } from '../../platform/store/keyset.js';
import type { PasskeysTable } from '../methods/tables.js';

/** Key bundles and key shares (009-keys). */
export interface KeyBundlesTable {
  id: string;
  account_id: string;
  /** The passkey (device) the bundle belongs to. */
  method_id: string;
  /** Opaque base64url the client made: stored and returned, never parsed. */
  bundle: string;
  version: number;
  created_at: number;
  updated_at: number;
}

export interface KeySharesTable {
  account_id: string;
  /** Opaque base64url: the server's share of the client's split secret. */
  share: string;
  version: number;
  created_at: number;
  updated_at: number;
}

interface KeyTables {
  key_bundles: KeyBundlesTable;
  key_shares: KeySharesTable;
  passkeys: PasskeysTable;
}

export type KeyBundleRecord = Selectable<KeyBundlesTable>;
export type KeyShareRecord = Selectable<KeySharesTable>;

export function keyBundleQueries(db: Kysely<KeyTables>) {
  return {
    /** Is this one of the account's passkeys? (Another account's answers like none.) */
    async ownsMethod(accountId: string, methodId: string): Promise<boolean> {
      return !!(await db.selectFrom('passkeys').select('id').where('id', '=', methodId).where('account_id', '=', accountId).executeTakeFirst());
    },
    async find(accountId: string, methodId: string): Promise<KeyBundleRecord | undefined> {
      return db.selectFrom('key_bundles').selectAll().where('method_id', '=', methodId).where('account_id', '=', accountId).executeTakeFirst();
    },
    async insert(row: KeyBundleRecord): Promise<void> {
      await db.insertInto('key_bundles').values(row).execute();
    },
    /** Compare-and-swap on version (If-Match). */
    async update(accountId: string, methodId: string, expectedVersion: number, bundle: string, at: number): Promise<KeyBundleRecord | undefined> {
      return db
        .updateTable('key_bundles')
        .set({ bundle, version: expectedVersion + 1, updated_at: at })
        .where('method_id', '=', methodId)
        .where('account_id', '=', accountId)
        .where('version', '=', expectedVersion)
        .returningAll()
        .executeTakeFirst();
    },
    /** Deletes the bundle of one passkey, at a version when one is given (If-Match); true when one went. */
    async remove(accountId: string, methodId: string, expectedVersion?: number): Promise<boolean> {
      let query = db.deleteFrom('key_bundles').where('method_id', '=', methodId).where('account_id', '=', accountId);
      if (expectedVersion !== undefined) query = query.where('version', '=', expectedVersion);
      return Number((await query.executeTakeFirst()).numDeletedRows) === 1;
    },
    /** The account's bundles in (created_at, id) order: its own list, a contact's list, the export. */
    async page(accountId: string, after: KeysetPosition | undefined, limit: number): Promise<KeyBundleRecord[]> {
      return keysetPage(db.selectFrom('key_bundles').selectAll().where('account_id', '=', accountId), after, limit).execute();
    },
    /** The purge (PRODUCT §8). */
    async removeAll(accountId: string): Promise<void> {
      await db.deleteFrom('key_bundles').where('account_id', '=', accountId).execute();
    },
  };
}

export function keyShareQueries(db: Kysely<KeyTables>) {
  return {
    async find(accountId: string): Promise<KeyShareRecord | undefined> {
      return db.selectFrom('key_shares').selectAll().where('account_id', '=', accountId).executeTakeFirst();
    },
    async insert(row: KeyShareRecord): Promise<void> {
      await db.insertInto('key_shares').values(row).execute();
    },
    /** Compare-and-swap on version (If-Match). */
    async update(accountId: string, expectedVersion: number, share: string, at: number): Promise<KeyShareRecord | undefined> {
      return db
        .updateTable('key_shares')
        .set({ share, version: expectedVersion + 1, updated_at: at })
        .where('account_id', '=', accountId)
        .where('version', '=', expectedVersion)
        .returningAll()
        .executeTakeFirst();
    },
    async remove(accountId: string, expectedVersion: number): Promise<boolean> {
      const result = await db.deleteFrom('key_shares').where('account_id', '=', accountId).where('version', '=', expectedVersion).executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },
    /** The purge (PRODUCT §8). */
    async removeAll(accountId: string): Promise<void> {
      await db.deleteFrom('key_shares').where('account_id', '=', accountId).execute();
    },
  };
}
