import type { Expression, Kysely, SelectQueryBuilder, SqlBool } from 'kysely';
import { preparedQuery } from '../../platform/store/prepared.js';

/** The card-change log and its head (018-card-change-log, decision 180). */
export interface CardChangeLogTable {
  seq: number;
  owner_id: string;
  profile_id: string | null;
  subscriber_id: string | null;
  changed_at: number;
}

export interface CardChangeLogHeadTable {
  id: number;
  seq: number;
}

interface LogTables {
  card_change_log: CardChangeLogTable;
  card_change_log_head: CardChangeLogHeadTable;
}

/** Whose view of an owner a row changes: everyone receiving a profile, or one subscriber. */
export type CardChangeAudience = { profileId: string } | { subscriberId: string };

/** The profiles a subscriber receives now, as a subquery (the contacts service makes it). */
export type ReceivedProfiles = SelectQueryBuilder<any, any, { profile_id: string | null }>;
/** The same as a condition on a row naming an owner and a profile (the contacts service makes it). */
export type Receives = (ownerColumn: string, profileColumn: string) => Expression<SqlBool>;

export function cardChangeLogQueries(db: Kysely<LogTables>) {
  /** The rows that concern a subscriber: changes of the cards it receives, and its own. */
  const concerning = (subscriberId: string, received: ReceivedProfiles, after: number) =>
    db
      .selectFrom('card_change_log')
      .select(['seq', 'owner_id'])
      .where('profile_id', 'in', received)
      .where('seq', '>', after)
      .unionAll(db.selectFrom('card_change_log').select(['seq', 'owner_id']).where('subscriber_id', '=', subscriberId).where('seq', '>', after));

  /**
   * The rows after `after` up to `head` that concern a subscriber, read from the log's own order:
   * for a short stretch of the log this costs the stretch, whatever the subscriber follows. The
   * limit keeps SQLite from folding the read into a scan by owner.
   */
  /** Each owner of a set of log rows once, with its newest row, oldest first, at most `limit`. */
  const newestPerOwner = async (rows: ReturnType<typeof concerning> | ReturnType<typeof stretch>, limit: number): Promise<Array<{ owner_id: string; seq: number }>> => {
    const owners = await db
      .selectFrom(rows.as('c'))
      .select(['c.owner_id', (eb) => eb.fn.max('c.seq').as('seq')])
      .groupBy('c.owner_id')
      .orderBy('seq')
      .limit(limit)
      .execute();
    return owners.map((row) => ({ owner_id: row.owner_id, seq: Number(row.seq) }));
  };

  const stretch = (subscriberId: string, receives: Receives, after: number, head: number) =>
    db
      .selectFrom('card_change_log as l')
      .select(['l.seq', 'l.owner_id'])
      .where('l.seq', '>', after)
      .where('l.seq', '<=', head)
      .where((eb) => eb.or([eb('l.subscriber_id', '=', subscriberId), receives('l.owner_id', 'l.profile_id')]))
      .orderBy('l.seq')
      .limit(head - after);

  // Every sync and CTag read starts here: built once (platform/store/prepared.ts).
  const headQuery = preparedQuery(db, () => db.selectFrom('card_change_log_head').select('seq').where('id', '=', 1), 0);

  return {
    /** The newest number handed out (committed: the head row is written in the appends' transactions). */
    async head(): Promise<number> {
      return Number((await headQuery())[0]!.seq);
    },

    /**
     * Appends rows numbered one past the head, in the caller's transaction. The head's update
     * locks its row until the transaction ends (PostgreSQL; SQLite has one writer anyway), so
     * appends commit in the order of their numbers: a reader that sees n has seen every row
     * below n, and "after n" never misses one that commits later (decision 180).
     */
    async append(owner: string, audiences: readonly CardChangeAudience[], at: number): Promise<number> {
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
          })),
        )
        .execute();
      return last;
    },

    /**
     * The owners whose view changed for a subscriber after `after`, each once with its newest
     * row, oldest first, at most `limit`: a page ends at an owner's newest row, so the next
     * page, read after it, holds every owner left out (each has a newer row).
     */
    async changedOwners(subscriberId: string, received: ReceivedProfiles, after: number, limit: number): Promise<Array<{ owner_id: string; seq: number }>> {
      return newestPerOwner(concerning(subscriberId, received, after), limit);
    },

    /** changedOwners over the stretch (after, head] of the log, read in the log's order. */
    async changedOwnersBetween(subscriberId: string, receives: Receives, after: number, head: number, limit: number): Promise<Array<{ owner_id: string; seq: number }>> {
      return newestPerOwner(stretch(subscriberId, receives, after, head), limit);
    },

    /** The newest row of the stretch (after, head] that concerns a subscriber, or 0. */
    async newestBetween(subscriberId: string, receives: Receives, after: number, head: number): Promise<number> {
      const row = await db
        .selectFrom(stretch(subscriberId, receives, after, head).as('c'))
        .select((eb) => eb.fn.max('c.seq').as('seq'))
        .executeTakeFirst();
      return Number(row?.seq ?? 0);
    },

    /**
     * The newest row that concerns a subscriber (0 when none): one backward index seek per
     * profile it receives, and one for its own rows.
     */
    async newestConcerning(subscriberId: string, received: ReceivedProfiles): Promise<number> {
      const perProfile = db
        .selectFrom(received.as('r'))
        .select((eb) => eb.selectFrom('card_change_log as l').select((e) => e.fn.max('l.seq').as('m')).whereRef('l.profile_id', '=', 'r.profile_id').as('seq'));
      const own = db.selectFrom('card_change_log').select((eb) => eb.fn.max('seq').as('seq')).where('subscriber_id', '=', subscriberId);
      const row = await db
        .selectFrom(perProfile.unionAll(own).as('t'))
        .select((eb) => eb.fn.max('t.seq').as('seq'))
        .executeTakeFirst();
      return Number(row?.seq ?? 0);
    },
  };
}
