import type { Kysely, Selectable } from 'kysely';
import type { Dialect } from '../../platform/store/db.js';
import { keysetPage } from '../../platform/store/keyset.js';
import type { KeysetPosition } from '../../platform/store/keyset.js';
import { compiledOnce } from '../../platform/store/prepared.js';

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

/** Every column of SecurityLogTable, each once: one missing here, or unknown to it, does not compile. */
const everyColumn: { [Column in keyof SecurityLogTable]-?: true } = {
  id: true,
  account_id: true,
  kind: true,
  created_at: true,
  ip: true,
  location: true,
  user_agent: true,
  detail: true,
};
const COLUMNS = Object.keys(everyColumn) as Array<keyof SecurityLogTable>;

export function securityLogQueries(db: Kysely<{ security_log: SecurityLogTable }>, dialect: Dialect) {
  return {
    /** In the transaction of what it records (a sign-in's, say): compiled once, not per transaction. */
    async insert(record: SecurityLogRecord): Promise<void> {
      await db.executeQuery(
        compiledOnce(dialect, 'security log insert', (p) => db.insertInto('security_log').values(Object.fromEntries(COLUMNS.map((column) => [column, p(column)])) as unknown as SecurityLogRecord), record),
      );
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
