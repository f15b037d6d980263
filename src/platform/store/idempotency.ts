import type { Kysely, Selectable } from 'kysely';
import type { IdempotencyRecordsTable, PlatformTables } from './schema.js';

export type IdempotencyRecord = Selectable<IdempotencyRecordsTable>;

export function idempotencyQueries(db: Kysely<PlatformTables>) {
  return {
    /**
     * Claims a key for a request in one statement. A record whose in-flight lease ran out (its
     * node died mid-request) is taken over, so a key is never stuck for its whole 24 hours.
     */
    async claim(record: IdempotencyRecord, now: number): Promise<{ claimed: true } | { claimed: false; existing: IdempotencyRecord }> {
      const inserted = await db
        .insertInto('idempotency_records')
        .values(record)
        .onConflict((oc) => oc.columns(['scope', 'idem_key']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) return { claimed: true };
      const takenOver = await db
        .updateTable('idempotency_records')
        .set({ fingerprint: record.fingerprint, locked_until: record.locked_until, expires_at: record.expires_at, state: 'in_flight' })
        .where('scope', '=', record.scope)
        .where('idem_key', '=', record.idem_key)
        .where((eb) => eb.or([eb('expires_at', '<=', now), eb.and([eb('state', '=', 'in_flight'), eb('locked_until', '<=', now)])]))
        .executeTakeFirst();
      if (Number(takenOver.numUpdatedRows) === 1) return { claimed: true };
      const existing = await db
        .selectFrom('idempotency_records')
        .selectAll()
        .where('scope', '=', record.scope)
        .where('idem_key', '=', record.idem_key)
        .executeTakeFirst();
      if (!existing) return this.claim(record, now);
      return { claimed: false, existing };
    },
    async complete(scope: string, key: string, response: { status: number; body: string; headers: string }): Promise<void> {
      await db
        .updateTable('idempotency_records')
        .set({ state: 'done', status: response.status, body: response.body, headers: response.headers })
        .where('scope', '=', scope)
        .where('idem_key', '=', key)
        .execute();
    },
    /** Frees a key whose request failed on our side, so the client's retry runs again. */
    async release(scope: string, key: string): Promise<void> {
      await db.deleteFrom('idempotency_records').where('scope', '=', scope).where('idem_key', '=', key).where('state', '=', 'in_flight').execute();
    },
  };
}
