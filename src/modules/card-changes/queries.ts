import { sql } from 'kysely';
import type { Generated, Kysely, SelectQueryBuilder } from 'kysely';
import { FOLLOWERS_PREFIX, SIGNALS_CHANNEL_SQL } from '../../platform/signals/log.js';
import type { Dialect } from '../../platform/store/db.js';

/** The card-change log and its head (018-card-change-log, decision 180). */
export interface CardChangeLogTable {
  seq: number;
  owner_id: string;
  profile_id: string | null;
  subscriber_id: string | null;
  changed_at: number;
  /** 1 when the card itself changed (its followers hear of it), 0 when who receives it did (019, decision 220). */
  edited: number;
}

export interface CardChangeLogHeadTable {
  id: number;
  seq: number;
}

/** Rows waiting for their position (027-card-change-pending, decision 342; PostgreSQL). */
export interface CardChangePendingTable {
  id: Generated<number>;
  owner_id: string;
  profile_id: string | null;
  subscriber_id: string | null;
  changed_at: number;
  edited: number;
}

export interface LogTables {
  card_change_log: CardChangeLogTable;
  card_change_log_head: CardChangeLogHeadTable;
}

/**
 * Whose view of an owner a row changes: everyone receiving a profile, or one subscriber. An
 * `edited` profile row is an edit of the card itself, which its followers' feeds carry.
 */
export type CardChangeAudience = { profileId: string; edited?: boolean } | { subscriberId: string };

/** The rows a change writes, before a position is theirs. */
const rowsOf = (owner: string, audiences: readonly CardChangeAudience[], at: number) =>
  audiences.map((audience) => ({
    owner_id: owner,
    profile_id: 'profileId' in audience ? audience.profileId : null,
    subscriber_id: 'subscriberId' in audience ? audience.subscriberId : null,
    changed_at: at,
    edited: 'edited' in audience && audience.edited ? 1 : 0,
  }));

const ROW_COLUMNS = ['owner_id', 'profile_id', 'subscriber_id', 'changed_at', 'edited'] as const;

/**
 * The log's writes (its reads: statements.ts). A change's rows get their positions, one past
 * the head, in the order their transactions commit, so a reader that sees position n has seen
 * every row below it and "after n" never misses one that commits later (decisions 180, 342):
 * - SQLite (one writer): the change's transaction appends them to the log itself.
 * - PostgreSQL: the change's transaction writes them to card_change_pending, sharing no lock
 *   with any other change, and after its commit `sequence` moves every committed pending row
 *   into the log in one short transaction holding the head's row, which no change's
 *   transaction touches.
 */
export function cardChangeLogQueries(db: Kysely<LogTables & { card_change_pending: CardChangePendingTable }>, dialect: Dialect) {
  /** Takes `count` positions past the head (its row locked until the transaction ends); the first is returned. */
  const takePositions = async (count: number): Promise<number> => {
    const head = await db.updateTable('card_change_log_head').set((eb) => ({ seq: eb('seq', '+', count) })).where('id', '=', 1).returning('seq').executeTakeFirstOrThrow();
    return Number(head.seq) - count + 1;
  };

  return {
    /** Writes a change's rows in the caller's transaction: one per audience. */
    async append(owner: string, audiences: readonly CardChangeAudience[], at: number): Promise<void> {
      const rows = rowsOf(owner, audiences, at);
      if (dialect === 'postgres') {
        await db.insertInto('card_change_pending').values(rows).execute();
        return;
      }
      const first = await takePositions(rows.length);
      await db
        .insertInto('card_change_log')
        .values(rows.map((row, i) => ({ seq: first + i, ...row })))
        .execute();
    },

    /**
     * Writes one row per subscriber of a selection (each one's own view of the owner changed),
     * in one statement whatever their number.
     */
    async appendEach(owner: string, subscribers: SelectQueryBuilder<any, any, { account_id: string }>, at: number): Promise<void> {
      const each = (numbered: boolean, base = 0) =>
        db.selectFrom(subscribers.as('s')).select([
          ...(numbered ? [sql<number>`${sql.lit(base)} + row_number() over (order by ${sql.ref('s.account_id')})`.as('seq')] : []),
          sql<string>`cast(${owner} as text)`.as('owner_id'),
          sql<null>`null`.as('profile_id'),
          's.account_id as subscriber_id',
          sql.lit(at).as('changed_at'),
          sql.lit(0).as('edited'),
        ]);
      if (dialect === 'postgres') {
        await db.insertInto('card_change_pending').columns([...ROW_COLUMNS]).expression(each(false).orderBy('s.account_id')).execute();
        return;
      }
      // The head's row is locked first, so no other append takes the numbers between.
      const base = (await takePositions(0)) - 1;
      const inserted = await db.insertInto('card_change_log').columns(['seq', ...ROW_COLUMNS]).expression(each(true, base)).executeTakeFirst();
      const count = Number(inserted.numInsertedOrUpdatedRows ?? 0);
      if (count > 0) await db.updateTable('card_change_log_head').set({ seq: base + count }).where('id', '=', 1).execute();
    },

    /**
     * PostgreSQL: moves up to `batch` committed pending rows into the log, numbered one past the
     * head in the order they were written, in the caller's (the sequencer's) transaction. The
     * head's row is locked first, so the move's snapshot, taken after, sees every change that
     * committed before. Returns how many moved and whose cards were edited among them: their
     * followers wake at this commit, on every node (one notification per owner).
     */
    async sequence(batch: number): Promise<{ moved: number; edited: string[] }> {
      const head = Number((await db.selectFrom('card_change_log_head').select('seq').where('id', '=', 1).forUpdate().executeTakeFirstOrThrow()).seq);
      const moved = await db
        .with('moved', (q) =>
          q
            .deleteFrom('card_change_pending')
            .where('id', 'in', q.selectFrom('card_change_pending').select('id').orderBy('id').limit(batch))
            .returning(['id', ...ROW_COLUMNS]),
        )
        .insertInto('card_change_log')
        .columns(['seq', ...ROW_COLUMNS])
        .expression((eb) => eb.selectFrom('moved').select([sql<number>`${sql.lit(head)} + row_number() over (order by ${sql.ref('moved.id')})`.as('seq'), ...ROW_COLUMNS]))
        .returning(['owner_id', 'edited'])
        .execute();
      if (moved.length === 0) return { moved: 0, edited: [] };
      await db.updateTable('card_change_log_head').set({ seq: head + moved.length }).where('id', '=', 1).execute();
      const edited = [...new Set(moved.filter((row) => row.edited === 1).map((row) => row.owner_id))];
      if (edited.length) await sql`select pg_notify(${sql.raw(SIGNALS_CHANNEL_SQL)}, ${FOLLOWERS_PREFIX} || owner) from unnest(${edited}::text[]) as owner`.execute(db);
      return { moved: moved.length, edited };
    },

    /** Whether any change waits for its position (the sequencer's sweep). */
    async pending(): Promise<boolean> {
      return (await db.selectFrom('card_change_pending').select('id').limit(1).executeTakeFirst()) !== undefined;
    },
  };
}
