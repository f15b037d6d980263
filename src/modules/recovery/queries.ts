import type { Kysely, Selectable } from 'kysely';

/** The account's recovery key, sealed, with a verifier to check a typed key against (004-account-security). */
export interface RecoveryKeysTable {
  account_id: string;
  key_sealed: string;
  verifier: string;
  created_at: number;
  /** When the owner last downloaded it (016-recovery-key-downloads); null: never. */
  downloaded_at: number | null;
}


export type RecoveryKeyRecord = Selectable<RecoveryKeysTable>;

export function recoveryKeyQueries(db: Kysely<{ recovery_keys: RecoveryKeysTable }>) {
  return {
    async insert(record: RecoveryKeyRecord): Promise<void> {
      await db.insertInto('recovery_keys').values(record).execute();
    },
    async find(accountId: string): Promise<RecoveryKeyRecord | undefined> {
      return db.selectFrom('recovery_keys').selectAll().where('account_id', '=', accountId).executeTakeFirst();
    },
    async markDownloaded(accountId: string, at: number): Promise<void> {
      await db.updateTable('recovery_keys').set({ downloaded_at: at }).where('account_id', '=', accountId).execute();
    },
    async remove(accountId: string): Promise<void> {
      await db.deleteFrom('recovery_keys').where('account_id', '=', accountId).execute();
    },
  };
}
