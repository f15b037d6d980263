import type { Kysely } from 'kysely';
import type { Database } from '../../platform/store/schema.js';

export type RefreshUse =
  | { outcome: 'rotated'; sessionId: string }
  | { outcome: 'reused'; sessionId: string }
  | { outcome: 'unknown' };

export function refreshTokenQueries(db: Kysely<Database>) {
  return {
    async insert(hash: string, sessionId: string, at: number): Promise<void> {
      await db.insertInto('refresh_tokens').values({ hash, session_id: sessionId, created_at: at, used_at: null }).execute();
    },
    /**
     * Marks a refresh token used in one atomic statement. A token already used is a reuse
     * (RFC 9700 §4.14.2): the caller revokes the session it belongs to.
     */
    async consume(hash: string, at: number): Promise<RefreshUse> {
      const used = await db
        .updateTable('refresh_tokens')
        .set({ used_at: at })
        .where('hash', '=', hash)
        .where('used_at', 'is', null)
        .returning('session_id')
        .executeTakeFirst();
      if (used) return { outcome: 'rotated', sessionId: used.session_id };
      const known = await db.selectFrom('refresh_tokens').select('session_id').where('hash', '=', hash).executeTakeFirst();
      return known ? { outcome: 'reused', sessionId: known.session_id } : { outcome: 'unknown' };
    },
  };
}
