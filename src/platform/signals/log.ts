import { sql } from 'kysely';
import type { Kysely, Selectable, SelectQueryBuilder } from 'kysely';
import type { Dialect } from '../store/db.js';
import type { EventsTable, PlatformTables } from '../store/schema.js';
import type { SignalKindName } from './catalogue.js';

/** One signal as the log stores it: a position in one account's gap-free sequence. */
export type SignalRecord = Selectable<EventsTable>;

/**
 * The LISTEN/NOTIFY channel of this database schema, computed by PostgreSQL itself so that the
 * writer (`pg_notify` below) and every listener (notifier.ts) agree without configuration, and
 * several schemas on one database (tests, tenants) do not hear each other. Channel names are
 * limited to 63 bytes, hence the hash.
 */
export const SIGNALS_CHANNEL_SQL = `'vid_events_' || left(md5(current_schema()), 12)`;

/** Deleting expired signals in batches keeps each write short (SQLite has one writer). */
const PRUNE_BATCH = 5000;
/** Accounts per append statement: far below both dialects' bound-parameter limits. */
const APPEND_CHUNK = 1000;

/**
 * The signal log (the `events` table): per account, signals numbered without gaps in commit
 * order. Written only through signal() (signal.ts), read by the stream hub and GET /events.
 */
export function signalLog(db: Kysely<PlatformTables>, dialect: Dialect) {
  const notify = dialect === 'postgres';

  /** Takes the next sequence number of each account, locking their rows until commit. */
  async function nextNumbers(accountIds: readonly string[]): Promise<Map<string, number>> {
    if (notify && accountIds.length > 1) {
      // Rows locked in one order by every writer, so two fan-outs over the same accounts queue
      // instead of deadlocking.
      await db.selectFrom('accounts').select('id').where('id', 'in', accountIds).orderBy('id').forUpdate().execute();
    }
    const update = db
      .updateTable('accounts')
      .set((eb) => ({ event_seq: eb('event_seq', '+', 1) }))
      .where('id', accountIds.length === 1 ? '=' : 'in', accountIds.length === 1 ? accountIds[0]! : accountIds);
    // On PostgreSQL the same statement queues one NOTIFY per account, which PostgreSQL delivers
    // to every node only when (and if) the transaction commits.
    const rows = notify
      ? await update.returning(['id', 'event_seq', sql<string>`pg_notify(${sql.raw(SIGNALS_CHANNEL_SQL)}, accounts.id)`.as('notified')]).execute()
      : await update.returning(['id', 'event_seq']).execute();
    return new Map(rows.map((row) => [row.id, Number(row.event_seq)]));
  }

  return {
    /**
     * Appends one signal to each account's log, inside the transaction of the change that causes
     * it: the signals commit with the change or not at all (PRODUCT §7). Set-based: one update
     * and one insert for any number of accounts (in chunks of a thousand).
     */
    async append(accountIds: readonly string[], kind: SignalKindName, resources: string | ((accountId: string) => string), at: number): Promise<SignalRecord[]> {
      const appended: SignalRecord[] = [];
      for (let start = 0; start < accountIds.length; start += APPEND_CHUNK) {
        const chunk = accountIds.slice(start, start + APPEND_CHUNK);
        const numbers = await nextNumbers(chunk);
        const rows = chunk.flatMap((accountId) => {
          const seq = numbers.get(accountId);
          if (seq === undefined) return [];
          return [{ account_id: accountId, seq, kind, resource: typeof resources === 'string' ? resources : resources(accountId), created_at: at }];
        });
        if (rows.length) await db.insertInto('events').values(rows).execute();
        appended.push(...rows);
      }
      return appended;
    },

    /**
     * Fan-out: one signal to each account a query selects, in set-based statements whatever
     * their number (10,000 subscribers cost the same four statements as one): the rows are
     * locked in id order (PostgreSQL), NOTIFY is queued for each, one UPDATE takes every next
     * sequence number and one INSERT … SELECT writes the signals. `targets` selects `account_id`
     * and `param`, the value of the resource's one placeholder (`prefix || param || suffix`).
     */
    async appendSelected(
      targets: SelectQueryBuilder<any, any, { account_id: string; param: string }>,
      kind: SignalKindName,
      resource: { prefix: string; suffix: string },
      at: number,
    ): Promise<SignalRecord[]> {
      const selected = () => db.selectFrom(targets.as('t'));
      if (notify) {
        await sql`select count(*) from (select id from accounts where id in (${selected().select('t.account_id')}) order by id for update) locked`.execute(db);
        await sql`select count(pg_notify(${sql.raw(SIGNALS_CHANNEL_SQL)}, t.account_id)) from (${targets}) t`.execute(db);
      }
      await db
        .updateTable('accounts')
        .set((eb) => ({ event_seq: eb('event_seq', '+', 1) }))
        .where('id', 'in', selected().select('t.account_id'))
        .execute();
      // Literals, not parameters: an INSERT … SELECT gives PostgreSQL no column to type them by.
      const rows = await db
        .insertInto('events')
        .columns(['account_id', 'seq', 'kind', 'resource', 'created_at'])
        .expression(
          selected()
            .innerJoin('accounts', 'accounts.id', 't.account_id')
            .select([
              't.account_id',
              'accounts.event_seq',
              sql.lit(kind).as('kind'),
              sql<string>`${sql.lit(resource.prefix)} || t.param || ${sql.lit(resource.suffix)}`.as('resource'),
              sql.lit(at).as('created_at'),
            ]),
        )
        .returning(['account_id', 'seq', 'resource'])
        .execute();
      return rows.map((row) => ({ account_id: row.account_id, seq: Number(row.seq), kind, resource: row.resource, created_at: at }));
    },

    /** Signals of an account after a sequence number, oldest first. */
    async listAfter(accountId: string, afterSeq: number, limit: number): Promise<SignalRecord[]> {
      return db.selectFrom('events').selectAll().where('account_id', '=', accountId).where('seq', '>', afterSeq).orderBy('seq').limit(limit).execute();
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

export type SignalLog = ReturnType<typeof signalLog>;
