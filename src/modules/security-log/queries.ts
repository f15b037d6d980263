import type { Kysely, Selectable } from 'kysely';
import type { Database, SecurityLogTable } from '../../platform/store/schema.js';

export type SecurityLogRecord = Selectable<SecurityLogTable>;

export function securityLogQueries(db: Kysely<Database>) {
  return {
    async insert(record: SecurityLogRecord): Promise<void> {
      await db.insertInto('security_log').values(record).execute();
    },
    /** Newest first, before a keyset position. */
    async list(accountId: string, before: { created_at: number; id: string } | undefined, limit: number): Promise<SecurityLogRecord[]> {
      let query = db.selectFrom('security_log').selectAll().where('account_id', '=', accountId);
      if (before) {
        query = query.where((eb) =>
          eb.or([eb('created_at', '<', before.created_at), eb.and([eb('created_at', '=', before.created_at), eb('id', '<', before.id)])]),
        );
      }
      return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
    },
  };
}
