import { sql } from 'kysely';
import type { Kysely, RawBuilder, SelectQueryBuilder } from 'kysely';
import { statement } from '../../platform/store/statement.js';
import type { Param } from '../../platform/store/statement.js';
import type { DatabaseHandle } from '../../platform/store/db.js';
import type { LogTables } from './queries.js';

/**
 * The read side's one question (decisions 180, 220): which rows of the card-change log after
 * position T concern follower F. A row concerns F when it is F's own (its view of an owner
 * changed: approved, moved, revoked) or names a card F receives now (the contacts' audience
 * rule, asked of the row). Every reader asks it and keeps one answer:
 * - the signal feed: each contact's newest edit (`edits`);
 * - the address book's sync: each owner's newest row (`owners`);
 * - the address book's sync token and CTag: the newest row of all (`newest`).
 *
 * The question is answered one way, as each card's newest row in the window (and F's own newest
 * row per owner), read by one of two strategies that answer alike (test/store/fast-paths.test.ts
 * holds both to a model of the rule):
 * - `stretch`: the rows of (T, head] in the log's order, each probing the live-pair index (cost:
 *   the stretch, whatever F follows), for a reader near the head (every live follower after an edit);
 * - `cards`: one backward index seek per card F receives and per owner of its own rows (cost: its
 *   contacts), for a reader far behind (a phone's first sync, a feed read from a time on).
 * Each is a statement prepared once per app (statement.ts): planning these reads costs more than
 * running them.
 */

/** Up to this many rows of log behind, a reader reads the stretch; further, the cards (bench scenario m measured both). */
export const STRETCH_ROWS = 2000;

/** The subscriber's contact (subscription) id when it receives that owner's profile now, else null (the contacts service makes it). */
export type ReceivedContact = (ownerColumn: string, profileColumn: string) => RawBuilder<string | null>;
/** The cards a subscriber receives now with their contact ids, as a subquery (the contacts service makes it). */
export type ReceivedCards = SelectQueryBuilder<any, any, { contact_id: string; owner_id: string; profile_id: string | null }>;

/** The audience rule, as the contacts service hands it to the log's readers. */
export interface Receivers {
  receivedContact(subscriberId: string): ReceivedContact;
  receivedCards(subscriberId: string): ReceivedCards;
}

/** The newest edit of one contact's card that a subscriber is to hear of. */
export interface CardEdit {
  contact_id: string;
  seq: number;
  changed_at: number;
}

/** Which rows a question reads: (after, head], edits only (the feed) or every change, and from a time on (0: any). */
interface Window {
  subscriberId: string;
  after: number;
  head: number;
  notBefore: number;
  /** head - after: the stretch's limit keeps SQLite from folding its read into a scan by owner. */
  stretch: number;
}

/** Each card's newest row concerning the subscriber in a window, and its own newest row per owner (contact_id null). */
type NewestRows = SelectQueryBuilder<any, any, { owner_id: string; contact_id: string | null; seq: number | null }>;
type Strategy = (db: Kysely<LogTables>, receivers: Receivers, w: Window, editsOnly: boolean) => NewestRows;

const inWindow = <Q extends SelectQueryBuilder<any, any, any>>(q: Q, table: string, w: Window, editsOnly: boolean): Q =>
  q
    .where(`${table}.seq`, '>', w.after)
    .where(`${table}.seq`, '<=', w.head)
    .where(`${table}.changed_at`, '>=', w.notBefore)
    .$if(editsOnly, (q) => q.where(`${table}.edited`, '=', 1)) as Q;

/** The stretch (after, head] in the log's order, each row probing the live-pair index. */
const fromStretch: Strategy = (db, receivers, w, editsOnly) => {
  const rows = inWindow(
    db
      .selectFrom('card_change_log as l')
      .select(['l.seq', 'l.owner_id', 'l.subscriber_id', receivers.receivedContact(w.subscriberId)('l.owner_id', 'l.profile_id').as('contact_id')]),
    'l',
    w,
    editsOnly,
  )
    .orderBy('l.seq')
    .limit(w.stretch);
  return db
    .selectFrom(rows.as('s'))
    .select(['s.owner_id', 's.contact_id', (eb) => eb.fn.max('s.seq').as('seq')])
    .where((eb) => eb.or([eb('s.contact_id', 'is not', null), eb('s.subscriber_id', '=', w.subscriberId)]))
    .groupBy(['s.owner_id', 's.contact_id']);
};

/** The cards the subscriber receives, each its newest row by one backward seek; and its own rows per owner. */
const fromCards: Strategy = (db, receivers, w, editsOnly) => {
  const cards = db
    .selectFrom(receivers.receivedCards(w.subscriberId).as('r'))
    .select([
      'r.owner_id',
      (eb) => eb.ref('r.contact_id').$castTo<string | null>().as('contact_id'),
      (eb) => inWindow(eb.selectFrom('card_change_log as l').select('l.seq').whereRef('l.profile_id', '=', 'r.profile_id'), 'l', w, editsOnly).orderBy('l.seq', 'desc').limit(1).as('seq'),
    ]);
  if (editsOnly) return cards;
  const own = inWindow(db.selectFrom('card_change_log as o').select(['o.owner_id', sql<string | null>`null`.as('contact_id'), (eb) => eb.fn.max('o.seq').as('seq')]), 'o', w, false)
    .where('o.subscriber_id', '=', w.subscriberId)
    .groupBy('o.owner_id');
  return cards.unionAll(own) as NewestRows;
};

/** The newest row of all (0 when none): a book's sync token and CTag. */
const newest = (db: Kysely<LogTables>, rows: NewestRows) => db.selectFrom(rows.as('n')).select((eb) => eb.fn.max('n.seq').as('seq'));

/**
 * Each owner once with its newest row, oldest first, at most `limit`: a page ends at an owner's
 * newest row, so the next page, read after it, holds every owner left out (each has a newer one).
 */
const owners = (db: Kysely<LogTables>, rows: NewestRows, limit: number) =>
  db
    .selectFrom(rows.as('n'))
    .select(['n.owner_id', (eb) => eb.fn.max('n.seq').as('seq')])
    .where('n.seq', 'is not', null)
    .groupBy('n.owner_id')
    .orderBy('seq')
    .limit(limit);

/**
 * The edits the subscriber is to hear of, oldest first, at most `limit`: each contact's newest
 * edit, unless its own newest row with that owner is later (its approval or move: an edit
 * before it is not theirs). A page ends at a contact's newest edit, so every contact left out
 * has a newer one and the next page, read after it, holds it.
 */
const edits = (db: Kysely<LogTables>, subscriberId: string, rows: NewestRows, limit: number) =>
  db
    .selectFrom(rows.as('e'))
    .select(['e.contact_id', 'e.seq', (eb) => eb.selectFrom('card_change_log as c').select('c.changed_at').whereRef('c.seq', '=', 'e.seq').as('changed_at')])
    .where('e.contact_id', 'is not', null)
    .where('e.seq', 'is not', null)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb.selectFrom('card_change_log as m').select('m.seq').where('m.subscriber_id', '=', subscriberId).whereRef('m.owner_id', '=', 'e.owner_id').whereRef('m.seq', '>', 'e.seq'),
        ),
      ),
    )
    .orderBy('e.seq')
    .limit(limit);

/** The window as parameters; the stretch's limit is asked for only by the strategy that reads it (statement.ts refuses an unused one). */
const windowOf = (p: Param<Window>): Window => ({
  subscriberId: p('subscriberId'),
  after: p('after'),
  head: p('head'),
  notBefore: p('notBefore'),
  get stretch() {
    return p('stretch');
  },
});

/** The log's head: every sync, CTag read and live follower's read after an edit starts here. */
const logHead = statement('card log head', (db: Kysely<LogTables>) => db.selectFrom('card_change_log_head').select('seq').where('id', '=', 1));

export type StrategyName = 'stretch' | 'cards';
/** Which strategy reads a window: near the head the stretch, further behind the cards. */
export const strategyFor = (after: number, head: number): StrategyName => (head - after <= STRETCH_ROWS ? 'stretch' : 'cards');

/**
 * The question's statements, built with the contacts' audience rule once per app, each under
 * both strategies. `strategy` is for the tests that hold the two to one model; readers leave it
 * to strategyFor.
 */
export function concerningStatements(handle: Pick<DatabaseHandle, 'db'>, receivers: Receivers) {
  const { db } = handle;
  const prepared = (name: StrategyName, read: Strategy) => ({
    edits: statement(`card edits (${name})`, (db: Kysely<LogTables>, p: Param<Window & { limit: number }>) => edits(db, p('subscriberId'), read(db, receivers, windowOf(p), true), p('limit'))),
    owners: statement(`changed owners (${name})`, (db: Kysely<LogTables>, p: Param<Window & { limit: number }>) => owners(db, read(db, receivers, windowOf(p), false), p('limit'))),
    newest: statement(`newest concerning (${name})`, (db: Kysely<LogTables>, p: Param<Window>) => newest(db, read(db, receivers, windowOf(p), false))),
  });
  const statements = { stretch: prepared('stretch', fromStretch), cards: prepared('cards', fromCards) };
  const params = (subscriberId: string, after: number, head: number, notBefore = 0) => ({ subscriberId, after, head, notBefore, stretch: Math.max(head - after, 1) });

  return {
    /** The newest number handed out (committed: the head row is written in the appends' transactions). */
    async head(): Promise<number> {
      return Number((await logHead.first(db, {}))!.seq);
    },
    /** The feed's card edits after `after` up to `head` (made at `notBefore` or later). */
    async edits(subscriberId: string, after: number, head: number, limit: number, notBefore = 0, strategy = strategyFor(after, head)): Promise<CardEdit[]> {
      const rows = await statements[strategy].edits.all(db, { ...params(subscriberId, after, head, notBefore), limit });
      return rows.map((row) => ({ contact_id: row.contact_id!, seq: Number(row.seq), changed_at: Number(row.changed_at) }));
    },
    /** The owners whose view changed for the subscriber after `after` up to `head`, each with its newest row. */
    async owners(subscriberId: string, after: number, head: number, limit: number, strategy = strategyFor(after, head)): Promise<Array<{ owner_id: string; seq: number }>> {
      const rows = await statements[strategy].owners.all(db, { ...params(subscriberId, after, head), limit });
      return rows.map((row) => ({ owner_id: row.owner_id, seq: Number(row.seq) }));
    },
    /** The newest row after `after` up to `head` that concerns the subscriber, or 0. */
    async newest(subscriberId: string, after: number, head: number, strategy = strategyFor(after, head)): Promise<number> {
      const row = await statements[strategy].newest.first(db, params(subscriberId, after, head));
      return Number(row?.seq ?? 0);
    },
  };
}

export type ConcerningStatements = ReturnType<typeof concerningStatements>;
