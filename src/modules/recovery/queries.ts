import type { Kysely, Selectable } from 'kysely';
import type { Database, RecoveryKeysTable } from '../../platform/store/schema.js';

export type RecoveryKeyRecord = Selectable<RecoveryKeysTable>;

export function recoveryKeyQueries(db: Kysely<Database>) {
  return {
    async insert(record: RecoveryKeyRecord): Promise<void> {
      await db.insertInto('recovery_keys').values(record).execute();
    },
    async find(accountId: string): Promise<RecoveryKeyRecord | undefined> {
      return db.selectFrom('recovery_keys').selectAll().where('account_id', '=', accountId).executeTakeFirst();
    },
  };
}
