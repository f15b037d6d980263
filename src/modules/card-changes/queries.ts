import { sql } from 'kysely';
import type { Kysely, SelectQueryBuilder } from 'kysely';
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

export interface LogTables {
  card_change_log: CardChangeLogTable;
  card_change_log_head: CardChangeLogHeadTable;
}

/**
 * Whose view of an owner a row changes: everyone receiving a profile, or one subscriber. An
 * `edited` profile row is an edit of the card itself, which its followers' feeds carry.
 */
export type CardChangeAudience = { profileId: string; edited?: boolean } | { subscriberId: string };

/** The log's writes, in the transactions of the changes they record (its reads: statements.ts). */
export function cardChangeLogQueries(db: Kysely<LogTables>, dialect: Dialect) {
  return {
    /**
     * Appends rows numbered one past the head, in the caller's transaction. The head's update
     * locks its row until the transaction ends (PostgreSQL; SQLite has one writer anyway), so
     * appends commit in the order of their numbers: a reader that sees n has seen every row
     * below n, and "after n" never misses one that commits later (decision 180).
     */
    async append(owner: string, audiences: readonly CardChangeAudience[], at: number): Promise<number> {
      const edited = audiences.some((audience) => 'edited' in audience && audience.edited);
      const head = await db
        .updateTable('card_change_log_head')
        .set((eb) => ({ seq: eb('seq', '+', audiences.length) }))
        .where('id', '=', 1)
        .returning('seq')
        .executeTakeFirstOrThrow();
      const last = Number(head.seq);
      const first = last - audiences.length + 1;
      await db
        .insertInto('card_change_log')
        .values(
          audiences.map((audience, i) => ({
            seq: first + i,
            owner_id: owner,
            profile_id: 'profileId' in audience ? audience.profileId : null,
            subscriber_id: 'subscriberId' in audience ? audience.subscriberId : null,
            changed_at: at,
            edited: 'edited' in audience && audience.edited ? 1 : 0,
          })),
        )
        .execute();
      // Every node's followers of this owner wake at the commit (never for a rollback): one
      // notification per edit, whatever the audience (PostgreSQL; one node on SQLite hears it in process).
      if (edited && dialect === 'postgres') await sql`select pg_notify(${sql.raw(SIGNALS_CHANNEL_SQL)}, ${FOLLOWERS_PREFIX + owner})`.execute(db);
      return last;
    },

    /**
     * Appends one row per subscriber of a selection (each one's own view of the owner changed),
     * numbered one past the head in one statement whatever their number: the head's row is
     * locked first, so no other append takes the numbers between (decision 180).
     */
    async appendEach(owner: string, subscribers: SelectQueryBuilder<any, any, { account_id: string }>, at: number): Promise<number> {
      const base = Number((await db.updateTable('card_change_log_head').set((eb) => ({ seq: eb('seq', '+', 0) })).where('id', '=', 1).returning('seq').executeTakeFirstOrThrow()).seq);
      const inserted = await db
        .insertInto('card_change_log')
        .columns(['seq', 'owner_id', 'profile_id', 'subscriber_id', 'changed_at', 'edited'])
        .expression(
          db
            .selectFrom(subscribers.as('s'))
            .select([
              sql<number>`${sql.lit(base)} + row_number() over (order by ${sql.ref('s.account_id')})`.as('seq'),
              sql<string>`cast(${owner} as text)`.as('owner_id'),
              sql<null>`null`.as('profile_id'),
              's.account_id as subscriber_id',
              sql.lit(at).as('changed_at'),
              sql.lit(0).as('edited'),
            ]),
        )
        .executeTakeFirst();
      const count = Number(inserted.numInsertedOrUpdatedRows ?? 0);
      if (count > 0) await db.updateTable('card_change_log_head').set({ seq: base + count }).where('id', '=', 1).execute();
      return base + count;
    },
  };
}
