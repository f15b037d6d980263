import type { Kysely, Selectable } from 'kysely';
import { keysetPage } from '../../platform/store/keyset.js';
import type { KeysetPosition } from '../../platform/store/keyset.js';
import { statement } from '../../platform/store/statement.js';
import type { Param } from '../../platform/store/statement.js';

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

/** The insert every sign-in, recovery and key change makes in its own transaction: built once per process (statement.ts). */
const insertRecord = statement('security log insert', (db: Kysely<{ security_log: SecurityLogTable }>, p: Param<SecurityLogRecord>) =>
  db.insertInto('security_log').values({
    id: p('id'),
    account_id: p('account_id'),
    kind: p('kind'),
    created_at: p('created_at'),
    ip: p('ip'),
    location: p('location'),
    user_agent: p('user_agent'),
    detail: p('detail'),
  }),
);

export function securityLogQueries(db: Kysely<{ security_log: SecurityLogTable }>) {
  return {
    /** In the transaction of what it records (a sign-in's, say). */
    async insert(record: SecurityLogRecord): Promise<void> {
      await insertRecord.all(db, record);
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
