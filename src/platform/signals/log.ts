import { sql } from 'kysely';
import type { Kysely, Selectable, SelectQueryBuilder } from 'kysely';
import type { Dialect } from '../store/db.js';
import { statement } from '../store/statement.js';
import type { Param } from '../store/statement.js';
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

/** On that channel, a payload naming an owner whose card changed (its followers wake), not an account with new signals. */
export const FOLLOWERS_PREFIX = 'followers:';

/** Deleting expired signals in batches keeps each write short (SQLite has one writer). */
const PRUNE_BATCH = 5000;
/** Accounts per append statement: far below both dialects' bound-parameter limits. */
const APPEND_CHUNK = 1000;

/**
 * The next number of an account's sequence: one past its newest signal, read on the log's
 * primary key (pruning always keeps an account's newest signal, so numbers never repeat).
 * Numbering from the log itself, not a counter on the account row, spares a fan-out to 10,000
 * subscribers an update of 10,000 account rows (docs/decisions/080-signal-numbers-from-the-log.md).
 */
const nextSeq = (accountId: unknown) => sql<number>`(select coalesce(max(newest.seq), 0) + 1 from events newest where newest.account_id = ${accountId})`;

/**
 * What an append returns. PostgreSQL: the same statement queues one NOTIFY per signal, delivered
 * to every node only when (and if) the transaction commits.
 */
const returnedBy = (dialect: Dialect) =>
  (dialect === 'postgres'
    ? ['account_id', 'seq', 'resource', sql<string>`pg_notify(${sql.raw(SIGNALS_CHANNEL_SQL)}, account_id)`.as('notified')]
    : ['account_id', 'seq', 'resource']) as unknown as ['account_id', 'seq', 'resource'];

/**
 * One signal to one account (a session opened, a field changed: most signals), the append below
 * for a single account as a statement built once per process (statement.ts), so the transactions
 * that write one neither build nor plan it each time. fast-paths.test.ts holds it to the append.
 */
export const appendOne = statement(
  'signal append',
  (db: Kysely<PlatformTables>, p: Param<{ accountId: string; kind: string; resource: string; at: number }>, dialect) =>
    db
      .insertInto('events')
      .values({ account_id: p('accountId'), seq: nextSeq(p('accountId')), kind: p('kind'), resource: p('resource'), created_at: p('at') })
      .returning(returnedBy(dialect)),
);

/**
 * The signal log (the `events` table): per account, signals numbered without gaps in commit
 * order. Written only through signal() (signal.ts), read by the stream hub and GET /events.
 */
export function signalLog(db: Kysely<PlatformTables>, dialect: Dialect) {
  const notify = dialect === 'postgres';
  /**
   * Accounts whose rows this transaction holds FOR UPDATE (PostgreSQL): the log is built once per
   * transaction (Tx.use), so this lives as long as the locks do. Only ever used through a
   * transaction's Tx.use: the store's own handle never appends.
   */
  const held = new Set<string>();

  /**
   * PostgreSQL: several writers. Each takes its accounts' rows (in id order, so two fan-outs over
   * the same accounts queue instead of deadlocking) before numbering: a second writer waits
   * for the first to commit, and its next statement sees the first one's numbers. SQLite has
   * one writer, which is the lock.
   */
  async function lockAccounts(accountIds: readonly string[] | SelectQueryBuilder<any, any, { account_id: string }>): Promise<void> {
    if (!notify) return;
    // Rows this transaction already holds FOR UPDATE need no second statement (rowsHeld below).
    if (Array.isArray(accountIds) && accountIds.every((id) => held.has(id))) return;
    const ids = Array.isArray(accountIds) ? sql.join(accountIds as readonly string[]) : (accountIds as SelectQueryBuilder<any, any, { account_id: string }>);
    await sql`select count(*) from (select id from accounts where id in (${ids}) order by id for update) locked`.execute(db);
    if (Array.isArray(accountIds)) for (const id of accountIds as readonly string[]) held.add(id);
  }

  const returned = returnedBy(dialect);

  return {
    /**
     * The caller's own statement took these accounts' rows FOR UPDATE in this transaction (a
     * session's opening, sessions/statements.ts): what lockAccounts would have done, so an
     * append to them numbers without locking again. Its next statement sees every signal
     * committed before the lock was granted, which is all the numbering needs.
     */
    rowsHeld(accountIds: readonly string[]): void {
      for (const id of accountIds) held.add(id);
    },

    /**
     * Appends one signal to each account's log, inside the transaction of the change that causes
     * it: the signals commit with the change or not at all (PRODUCT §7). Set-based: one insert
     * for any number of accounts (in chunks of a thousand).
     */
    async append(accountIds: readonly string[], kind: SignalKindName, resources: string | ((accountId: string) => string), at: number): Promise<SignalRecord[]> {
      const appended: SignalRecord[] = [];
      for (let start = 0; start < accountIds.length; start += APPEND_CHUNK) {
        const chunk = accountIds.slice(start, start + APPEND_CHUNK);
        await lockAccounts(chunk);
        if (chunk.length === 1) {
          const accountId = chunk[0]!;
          const resource = typeof resources === 'string' ? resources : resources(accountId);
          const row = (await appendOne.first(db, { accountId, kind, resource, at }))!;
          appended.push({ account_id: row.account_id, seq: Number(row.seq), kind, resource: row.resource, created_at: at });
          continue;
        }
        const rows = await db
          .insertInto('events')
          .values(chunk.map((accountId) => ({ account_id: accountId, seq: nextSeq(sql`${accountId}`), kind, resource: typeof resources === 'string' ? resources : resources(accountId), created_at: at })))
          .returning(returned)
          .execute();
        appended.push(...rows.map((row) => ({ account_id: row.account_id, seq: Number(row.seq), kind, resource: row.resource, created_at: at })));
      }
      return appended;
    },

    /**
     * Fan-out: one signal to each account a query selects, in set-based statements whatever
     * their number (10,000 subscribers cost the same statements as one): the rows are locked in
     * id order (PostgreSQL), and one INSERT … SELECT numbers and writes the signals (queuing a
     * NOTIFY for each on PostgreSQL). `targets` selects `account_id` and `param`, the value of
     * the resource's one placeholder (`prefix || param || suffix`).
     */
    async appendSelected(
      targets: SelectQueryBuilder<any, any, { account_id: string; param: string }>,
      kind: SignalKindName,
      resource: { prefix: string; suffix: string },
      at: number,
    ): Promise<SignalRecord[]> {
      const selected = () => db.selectFrom(targets.as('t'));
      await lockAccounts(selected().select('t.account_id'));
      // Literals, not parameters: an INSERT … SELECT gives PostgreSQL no column to type them by.
      const rows = await db
        .insertInto('events')
        .columns(['account_id', 'seq', 'kind', 'resource', 'created_at'])
        .expression(
          selected().select([
            't.account_id',
            nextSeq(sql.ref('t.account_id')).as('seq'),
            sql.lit(kind).as('kind'),
            sql<string>`${sql.lit(resource.prefix)} || t.param || ${sql.lit(resource.suffix)}`.as('resource'),
            sql.lit(at).as('created_at'),
          ]),
        )
        .returning(returned)
        .execute();
      return rows.map((row) => ({ account_id: row.account_id, seq: Number(row.seq), kind, resource: row.resource, created_at: at }));
    },

    /**
     * Signals of an account after a sequence number, oldest first, written at `notBefore` or
     * later: an account's newest signal outlives the retention (it carries the sequence on), but
     * readers see it as gone like the rest.
     */
    async listAfter(accountId: string, afterSeq: number, limit: number, notBefore = 0): Promise<SignalRecord[]> {
      return db
        .selectFrom('events')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('seq', '>', afterSeq)
        .where('created_at', '>=', notBefore)
        .orderBy('seq')
        .limit(limit)
        .execute();
    },

    /** The newest sequence number an account has handed out (0 before its first signal). */
    async head(accountId: string): Promise<number> {
      const row = await db.selectFrom('events').select((eb) => eb.fn.max('seq').as('seq')).where('account_id', '=', accountId).executeTakeFirst();
      return Number(row?.seq ?? 0);
    },

    /**
     * Deletes signals written before `before`, except each account's newest (its sequence goes
     * on from there, and a cursor just before it still resumes); returns how many.
     */
    async prune(before: number): Promise<number> {
      let removed = 0;
      for (;;) {
        const result = await db
          .deleteFrom('events')
          .where((eb) =>
            eb(
              eb.refTuple('account_id', 'seq'),
              'in',
              eb
                .selectFrom('events as old')
                .select(['old.account_id', 'old.seq'])
                .where('old.created_at', '<', before)
                .where('old.seq', '<', (inner) => inner.selectFrom('events as newest').select((m) => m.fn.max('newest.seq').as('seq')).whereRef('newest.account_id', '=', 'old.account_id'))
                .limit(PRUNE_BATCH)
                .$asTuple('account_id', 'seq'),
            ),
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
