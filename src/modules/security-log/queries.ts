import type { Kysely, Selectable } from 'kysely';
import { keysetPage } from '../../platform/store/keyset.js';
import type { KeysetPosition } from '../../platform/store/keyset.js';

/** What a person can read about their account's security: one row per event (004-account-security). */
export interface SecurityLogTable {
  id: string;
  account_id: string;
  kind: string;
  created_at: number;
  ip: string;
  location: string | null;
  user_agent: string;
  detail: string | null;
}

export type SecurityLogRecord = Selectable<SecurityLogTable>;

export function securityLogQueries(db: Kysely<{ security_log: SecurityLogTable }>) {
  return {
    async insert(record: SecurityLogRecord): Promise<void> {
      await db.insertInto('security_log').values(record).execute();
    },
    /** Newest first, before a keyset position. */
    async list(accountId: string, before: KeysetPosition | undefined, limit: number): Promise<SecurityLogRecord[]> {
      return keysetPage(db.selectFrom('security_log').selectAll().where('account_id', '=', accountId), before, limit, { order: 'desc' }).execute();
    },
    async removeAll(accountId: string): Promise<void> {
      await db.deleteFrom('security_log').where('account_id', '=', accountId).execute();
    },
  };
}
