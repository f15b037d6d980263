import type { Kysely, Selectable } from 'kysely';
import type { Database, EventsTable } from './schema.js';

export type EventRecord = Selectable<EventsTable>;

export function eventQueries(db: Kysely<Database>) {
  return {
    /**
     * Appends a signal for an account. Call it inside the transaction of the change that causes
     * it: the signal commits with the change or not at all (PRODUCT §7).
     */
    async append(accountId: string, kind: string, resource: string, at: number): Promise<EventRecord> {
      const next = await db
        .updateTable('accounts')
        .set((eb) => ({ event_seq: eb('event_seq', '+', 1) }))
        .where('id', '=', accountId)
        .returning('event_seq')
        .executeTakeFirstOrThrow();
      const event = { account_id: accountId, seq: Number(next.event_seq), kind, resource, created_at: at };
      await db.insertInto('events').values(event).execute();
      return event;
    },
  };
}
