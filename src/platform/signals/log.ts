import { sql } from 'kysely';
import type { Kysely, Selectable } from 'kysely';
import type { SignalKindName } from './catalogue.js';
import type { Dialect } from '../store/db.js';
import type { Database, EventsTable } from '../store/schema.js';

export type EventRecord = Selectable<EventsTable>;

/**
 * The LISTEN/NOTIFY channel of this database schema, computed by PostgreSQL itself so that the
 * writer (`pg_notify` below) and every listener (src/events/notifier.ts) agree without
 * configuration, and several schemas on one database (tests, tenants) do not hear each other.
 * Channel names are limited to 63 bytes, hence the hash.
 */
export const EVENTS_CHANNEL_SQL = `'vid_events_' || left(md5(current_schema()), 12)`;

/** Deleting expired signals in batches keeps each write short (SQLite has one writer). */
const PRUNE_BATCH = 5000;

export interface EventQueryOptions {
  dialect: Dialect;
  /** Told of every appended signal: collected by a transaction and published after its commit. */
  onAppend(event: EventRecord): void;
}

export function eventQueries(db: Kysely<Database>, options: EventQueryOptions) {
  const notify = options.dialect === 'postgres';
  return {
    /**
     * Appends a signal for an account. Call it inside the transaction of the change that causes
     * it: the signal commits with the change or not at all (PRODUCT §7). Taking the next number
     * locks the account row until commit, so within an account sequence order is commit order.
     * On PostgreSQL the same statement queues a NOTIFY, which PostgreSQL delivers to every node
     * only when (and if) the transaction commits. `kind` must be in the catalogue (kinds.ts).
     */
    async append(accountId: string, kind: SignalKindName, resource: string, at: number): Promise<EventRecord> {
      const update = db
        .updateTable('accounts')
        .set((eb) => ({ event_seq: eb('event_seq', '+', 1) }))
        .where('id', '=', accountId);
      const next = notify
        ? await update.returning(['event_seq', sql<string>`pg_notify(${sql.raw(EVENTS_CHANNEL_SQL)}, ${accountId})`.as('notified')]).executeTakeFirstOrThrow()
        : await update.returning('event_seq').executeTakeFirstOrThrow();
      const event = { account_id: accountId, seq: Number(next.event_seq), kind, resource, created_at: at };
      await db.insertInto('events').values(event).execute();
      options.onAppend(event);
      return event;
    },

    /** Signals of an account after a sequence number, oldest first. */
    async listAfter(accountId: string, afterSeq: number, limit: number): Promise<EventRecord[]> {
      return db
        .selectFrom('events')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('seq', '>', afterSeq)
        .orderBy('seq')
        .limit(limit)
        .execute();
    },

    /** The newest sequence number an account has handed out (0 before its first signal). */
    async head(accountId: string): Promise<number | undefined> {
      const row = await db.selectFrom('accounts').select('event_seq').where('id', '=', accountId).executeTakeFirst();
      return row ? Number(row.event_seq) : undefined;
    },

    /** Deletes signals written before `before`; returns how many. */
    async prune(before: number): Promise<number> {
      let removed = 0;
      for (;;) {
        const result = await db
          .deleteFrom('events')
          .where((eb) =>
            eb(eb.refTuple('account_id', 'seq'), 'in', eb.selectFrom('events').select(['account_id', 'seq']).where('created_at', '<', before).limit(PRUNE_BATCH).$asTuple('account_id', 'seq')),
          )
          .executeTakeFirst();
        const count = Number(result.numDeletedRows);
        removed += count;
        if (count < PRUNE_BATCH) return removed;
      }
    },
  };
}
