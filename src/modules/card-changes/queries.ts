import { sql } from 'kysely';
import type { Expression, Kysely, RawBuilder, SelectQueryBuilder, SqlBool } from 'kysely';
import { FOLLOWERS_PREFIX, SIGNALS_CHANNEL_SQL } from '../../platform/signals/log.js';
import type { DatabaseHandle, Dialect } from '../../platform/store/db.js';
import { statement } from '../../platform/store/statement.js';
import type { Param } from '../../platform/store/statement.js';

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

interface LogTables {
  card_change_log: CardChangeLogTable;
  card_change_log_head: CardChangeLogHeadTable;
}

/**
 * Whose view of an owner a row changes: everyone receiving a profile, or one subscriber. An
 * `edited` profile row is an edit of the card itself, which its followers' feeds carry.
 */
export type CardChangeAudience = { profileId: string; edited?: boolean } | { subscriberId: string };

/** The profiles a subscriber receives now, as a subquery (the contacts service makes it). */
export type ReceivedProfiles = SelectQueryBuilder<any, any, { profile_id: string | null }>;
/** The same as a condition on a row naming an owner and a profile (the contacts service makes it). */
export type Receives = (ownerColumn: string, profileColumn: string) => Expression<SqlBool>;
/** The subscriber's contact (subscription) id when it receives that owner's profile now, else null (the contacts service makes it). */
export type ReceivedContact = (ownerColumn: string, profileColumn: string) => RawBuilder<string | null>;
/** The cards a subscriber receives now with their contact ids, as a subquery (the contacts service makes it). */
export type ReceivedCards = SelectQueryBuilder<any, any, { contact_id: string; owner_id: string; profile_id: string | null }>;

/** The newest edit of one contact's card that a subscriber is to hear of. */
export interface CardEdit {
  contact_id: string;
  seq: number;
  changed_at: number;
}

type EditCandidates = SelectQueryBuilder<any, any, { contact_id: string; owner_id: string; seq: number; changed_at: number }>;

/**
 * The edits a subscriber is to hear of among some candidates (each contact's newest edit in a
 * window), oldest first, at most `limit`: those made after its own newest row with that owner
 * (its approval or move: an edit before it is not theirs). A page ends at a contact's newest
 * edit, so every contact left out has a newer one and the next page, read after it, holds it.
 */
function newestEdits(db: Kysely<LogTables>, subscriberId: unknown, candidates: EditCandidates, limit: unknown) {
  return db
    .selectFrom(candidates.as('e'))
    .select(['e.contact_id', 'e.seq', 'e.changed_at'])
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('card_change_log as m')
            .select('m.seq')
            .where('m.subscriber_id', '=', subscriberId as string)
            .whereRef('m.owner_id', '=', 'e.owner_id')
            .whereRef('m.seq', '>', 'e.seq'),
        ),
      ),
    )
    .orderBy('e.seq')
    .limit(limit as number);
}

/**
 * Each received contact's newest edit in the stretch (after, head] of the log, read in the log's
 * order, each row probing the live-pair index (cost: the stretch, whatever the subscriber
 * follows). `stretch` is head - after: the limit keeps SQLite from folding the read into a scan.
 */
function stretchEdits(db: Kysely<LogTables>, receivedContact: ReceivedContact, after: unknown, head: unknown, stretch: unknown): EditCandidates {
  return db
    .selectFrom(
      db
        .selectFrom('card_change_log as l')
        .select(['l.seq', 'l.changed_at', 'l.owner_id', receivedContact('l.owner_id', 'l.profile_id').as('contact_id')])
        .where('l.seq', '>', after as number)
        .where('l.seq', '<=', head as number)
        .where('l.edited', '=', 1)
        .orderBy('l.seq')
        .limit(stretch as number)
        .as('s'),
    )
    .select(['s.contact_id', 's.owner_id', (eb) => eb.fn.max('s.seq').as('seq'), (eb) => eb.fn.max('s.changed_at').as('changed_at')])
    .where('s.contact_id', 'is not', null)
    .groupBy(['s.contact_id', 's.owner_id']) as unknown as EditCandidates;
}

/** Each received card's newest edit in the window, from the cards (cost: the subscriber's contacts). */
function receivedCardEdits(db: Kysely<LogTables>, receivedCards: ReceivedCards, window: { after: number; head: number; notBefore: number }): EditCandidates {
  return db
    .selectFrom(receivedCards.as('r'))
    .innerJoin('card_change_log as l', (join) => join.onRef('l.profile_id', '=', 'r.profile_id').onRef('l.owner_id', '=', 'r.owner_id'))
    .select(['r.contact_id', 'r.owner_id', (eb) => eb.fn.max('l.seq').as('seq'), (eb) => eb.fn.max('l.changed_at').as('changed_at')])
    .where('l.seq', '>', window.after)
    .where('l.seq', '<=', window.head)
    .where('l.edited', '=', 1)
    .$if(window.notBefore > 0, (q) => q.where('l.changed_at', '>=', window.notBefore))
    .groupBy(['r.contact_id', 'r.owner_id']) as unknown as EditCandidates;
}

const toEdits = (rows: Array<{ contact_id: string; seq: number | string; changed_at: number | string }>): CardEdit[] =>
  rows.map((row) => ({ contact_id: row.contact_id, seq: Number(row.seq), changed_at: Number(row.changed_at) }));

/** The log's head: every sync, CTag read and live follower's read after an edit starts here (statement.ts). */
const logHead = statement('card log head', (db: Kysely<LogTables>) => db.selectFrom('card_change_log_head').select('seq').where('id', '=', 1));

/**
 * What every live follower's read after an edit runs, built and compiled once and, on
 * PostgreSQL, a named statement each connection plans once (planning the edits' read cost more
 * than running it): the log's head, and the edits near it (decision 220).
 */
export function cardEditStatements(handle: Pick<DatabaseHandle, 'db'>, receivedContact: (subscriberId: string) => ReceivedContact) {
  const { db } = handle;
  // Built with the contacts' rule, once per app (statement.ts).
  const nearHead = statement(
    'card edits near head',
    (db: Kysely<LogTables>, p: Param<{ subscriberId: string; after: number; head: number; stretch: number; limit: number }>) =>
      newestEdits(db, p('subscriberId'), stretchEdits(db, receivedContact(p('subscriberId')), p('after'), p('head'), p('stretch')), p('limit')),
  );
  return {
    async head(): Promise<number> {
      return Number((await logHead.first(db, {}))!.seq);
    },
    async editsNearHead(subscriberId: string, after: number, head: number, limit: number): Promise<CardEdit[]> {
      return toEdits(await nearHead.all(db, { subscriberId, after, head, stretch: Math.max(head - after, 1), limit }));
    },
  };
}

export type CardEditStatements = ReturnType<typeof cardEditStatements>;

export function cardChangeLogQueries(db: Kysely<LogTables>, dialect: Dialect) {
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

  return {
    /** The newest number handed out (committed: the head row is written in the appends' transactions). */
    async head(): Promise<number> {
      return Number((await logHead.first(db, {}))!.seq);
    },

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

    /**
     * The edits a subscriber is to hear of after `after`, far behind the head or from a time on:
     * the newest rows of each card it receives (cost: its contacts). Near the head the prepared
     * `cardEditStatements` read the stretch instead. See `newestEdits`.
     */
    async editsOfReceivedCards(subscriberId: string, receivedCards: ReceivedCards, window: { after: number; head: number; notBefore: number }, limit: number): Promise<CardEdit[]> {
      return toEdits(await newestEdits(db, subscriberId, receivedCardEdits(db, receivedCards, window), limit).execute());
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
