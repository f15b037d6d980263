import type { Clock } from '../../platform/clock.js';
import type { RepositoryOf, Tx } from '../../platform/store/store.js';
import type { ContactService } from '../contacts/contacts.js';
import type { MembershipChange } from '../contacts/subscriptions.js';
import type { CardEdit, ConcerningStatements } from './statements.js';
import type { CardChangeAudience, cardChangeLogQueries } from './queries.js';
import type { Sequencer } from './sequencer.js';

export type { CardEdit };

/** Owners per sync answer at most (RFC 6578 §3.6 lets a server truncate); the client asks again from the token. */
export const SYNC_PAGE = 500;
/** Subscribers whose book position this node remembers (an LRU): the CTag a phone polls costs one read. */
const REMEMBERED = 10_000;

/** What changed in a subscriber's book after a position of the log. */
export interface BookChanges {
  /** The position to resume from: the last row this answer covers, or the one asked about when nothing changed. */
  token: number;
  /** The people whose card changed, came or went: each is shown now or not (the audience rule decides). */
  people: string[];
  /** More changes follow the token (RFC 6578 §3.6). */
  truncated: boolean;
}

/**
 * The card-change log (decisions 180, 220): the read side's one source of "what changed for
 * follower F since position T". Who sees what is the contacts service's one audience rule; the
 * log only remembers when it changed, as positions every reader keeps:
 * - the signal feed and its streams: the card edits among a follower's contacts (`feed`);
 * - the address book: the people whose card changed, came or went (`changesSince`), and the
 *   newest position concerning a follower, its sync token and CTag (`currentToken`).
 * Each is that one question, asked of statements.ts, which answers it one way.
 *
 * The log is written by hooks in the transactions that change what someone sees (wiring.ts):
 * one row per changed card (per profile), whatever the owner's audience; one row per
 * subscriber only when that subscriber's own view of an owner changes. Appended last in each
 * transaction (read-side.ts, rule 1). A reader never renders a card it does not send, and never
 * writes.
 */
export function createCardChangeService(deps: {
  db: RepositoryOf<{ cardChanges: typeof cardChangeLogQueries }>;
  /** The one question's statements, prepared once with the contacts' audience rule. */
  concerning: ConcerningStatements;
  clock: Clock;
  /** The contacts service: whose card edits may reach a subscriber (a stream hub's index). */
  contacts: Pick<ContactService, 'followedOwners'>;
  /** PostgreSQL: gives committed changes their positions (sequencer.ts). */
  sequencer: Sequencer;
  /**
   * The capacity benchmark's limit (BENCH_WITHOUT_CARD_CHANGE_LOG, config.ts): the changes'
   * transactions write no rows of the log, so followers miss every change. Never in production.
   */
  withoutLog?: boolean;
}) {
  const { db, clock, contacts, concerning } = deps;
  /**
   * Per subscriber, the newest row that concerns it as of a head of the log. Derived data, kept
   * per node: a row at or below a head read committed before it (decision 180), and a change of
   * what the subscriber receives is itself a newer row of theirs, so the newest after a later
   * head is the larger of this and the newest of the stretch between: exact, never stale.
   */
  const positions = new Map<string, { head: number; newest: number }>();

  /** On PostgreSQL a change's rows wait for their positions until the sequencer's run after its commit. */
  const positionAfterCommit = (tx: Tx) => {
    if (tx.dialect === 'postgres') tx.afterCommit(deps.sequencer.run);
  };

  async function append(tx: Tx, ownerId: string, audiences: CardChangeAudience[]): Promise<void> {
    if (audiences.length === 0 || deps.withoutLog) return;
    await db.in(tx).cardChanges.append(ownerId, audiences, clock.now());
    positionAfterCommit(tx);
  }

  /** The newest position that concerns the subscriber: its book's sync token and CTag. */
  async function currentToken(subscriberId: string): Promise<number> {
    const head = await concerning.head();
    const known = positions.get(subscriberId);
    const from = known && known.head <= head ? known : { head: 0, newest: 0 };
    const newest = from.head === head ? from.newest : Math.max(from.newest, await concerning.newest(subscriberId, from.head, head));
    positions.delete(subscriberId);
    positions.set(subscriberId, { head, newest });
    if (positions.size > REMEMBERED) positions.delete(positions.keys().next().value!);
    return newest;
  }

  return {
    /**
     * Hook (profiles' onCardsChanged): these profiles' cards now show something else. One row
     * per card, and one wake-up for the owner's followers after the commit, whatever their
     * number: their feeds read the edit from here (decision 220).
     */
    async cardsChanged(tx: Tx, change: { accountId: string; profileIds: string[] }): Promise<void> {
      if (change.profileIds.length === 0) return;
      await append(tx, change.accountId, change.profileIds.map((profileId) => ({ profileId, edited: true })));
      tx.publishedToFollowers([change.accountId]);
    },

    /** Hook (subscriptions' onMembershipChanged): who receives the owner's card, or which, changed. */
    async membershipChanged(tx: Tx, change: MembershipChange): Promise<void> {
      if ('eachOf' in change) {
        if (deps.withoutLog) return;
        await db.in(tx).cardChanges.appendEach(change.ownerId, change.eachOf, clock.now());
        positionAfterCommit(tx);
        return;
      }
      const audiences = 'subscriberId' in change ? [{ subscriberId: change.subscriberId }] : change.profileIds.map((profileId) => ({ profileId }));
      await append(tx, change.ownerId, audiences);
    },

    currentToken,

    /**
     * The card edits in a subscriber's signal feed (decision 220): after position `after` of the
     * log, one per contact at its newest, oldest first. `notBefore` (a first read without a
     * position) keeps to edits made since then.
     */
    feed: {
      head: (): Promise<number> => concerning.head(),
      async editsAfter(subscriberId: string, after: number, head: number, limit: number, notBefore = 0): Promise<CardEdit[]> {
        return after >= head ? [] : concerning.edits(subscriberId, after, head, limit, notBefore);
      },
      /** Whose card edits may reach the subscriber: the owners it follows (a stream hub's index). */
      following: (subscriberId: string): Promise<string[]> => contacts.followedOwners(subscriberId),
    },

    /**
     * The people whose card changed for the subscriber after position `after` (at most `limit`),
     * or undefined when `after` is no position of the log (past its head: from before a restore,
     * or made up). Nothing changed: the same position back.
     */
    async changesSince(subscriberId: string, after: number, limit = SYNC_PAGE): Promise<BookChanges | undefined> {
      const head = await concerning.head();
      if (after > head) return undefined;
      const unchanged = { token: after, people: [], truncated: false };
      if (after === head) return unchanged;
      const rows = await concerning.owners(subscriberId, after, head, limit + 1);
      if (rows.length === 0) return unchanged;
      const page = rows.slice(0, limit);
      return { token: page[page.length - 1]!.seq, people: page.map((row) => row.owner_id), truncated: rows.length > limit };
    },
  };
}

export type CardChangeService = ReturnType<typeof createCardChangeService>;
