import type { SelectQueryBuilder } from 'kysely';
import type { AuthContext } from '../../platform/caller.js';
import type { Clock } from '../../platform/clock.js';
import { refuse } from '../../platform/errors.js';
import { txHook } from '../../platform/hooks.js';
import { signal } from '../../platform/signals/signal.js';
import type { accountQueries } from '../../platform/store/accounts.js';
import type { RepositoryOf, Tx } from '../../platform/store/store.js';
import type { annotationQueries, blockQueries, SubscriptionRecord, subscriptionQueries } from './queries.js';
import { STATUSES, TRANSITIONS } from './states.js';
import type { Action } from './states.js';
import { subscriptionView } from './views.js';
import type { SubscriptionView } from './views.js';

export const CONTACT_LIMITS = { requestsPerDay: 50, contactsPerAccount: 5000, messageLength: 280 } as const;
export const DAY_MS = 86_400_000;
/** What changed for someone whose first card this is: nothing they saw before (the card's `changed`). */
export const FIRST_CARD = '[]';

export interface BlockView {
  username: string;
  display_name: string | null;
  region: string;
  blocked_at: string;
}

/** How a subscription comes about: a request by username, or a redeemed share link. */
export interface SubscribeInput {
  ownerId: string;
  message?: string | null;
  /** A share link's grant: its profile, whether it approves at once, and the owner's label for it. */
  link?: { id: string; profileId: string; autoApprove: boolean; label: string | null };
  /** A subscriber from another region (its stand-in account's region, PRODUCT §10); absent for one of this region. */
  subscriberRegion?: string;
}

/**
 * Who receives an owner's card changed, or which card they receive, otherwise than by an edit of
 * the card (PRODUCT §9: an address book's members). Either one subscriber's own view of the
 * owner (approved, moved, revoked, unsubscribed), or that of everyone receiving some of the
 * owner's profiles (their subscribers moved onto one; the owner's account deleted, restored,
 * locked or unlocked), so an owner with a million subscribers is one row, not a million.
 */
/**
 * Whose view of an owner changed: one subscriber; everyone receiving some profiles; or each of a
 * set of subscribers (selected in SQL, so a profile's whole audience is one statement), each
 * of whom is let in anew (an edit from before is not theirs to hear of, decision 220).
 */
export type MembershipChange =
  | { ownerId: string; subscriberId: string }
  | { ownerId: string; profileIds: string[] }
  | { ownerId: string; eachOf: SelectQueryBuilder<any, any, { account_id: string }> };

export type SubscriptionRepo = RepositoryOf<{ subs: typeof subscriptionQueries; blocks: typeof blockQueries; annotations: typeof annotationQueries; accounts: typeof accountQueries }>;

export const subscriptionNotFound = () => refuse('subscription_not_found', 'no subscription to you has this id');
const DONE: Record<Action, string> = { approve: 'approved', deny: 'denied', move: 'moved', revoke: 'revoked', unsubscribe: 'ended', unblock: 'let through', expire: 'ended' };
export const invalidTransition = (status: string, action: Action) => refuse('invalid_transition', `a ${status} subscription cannot be ${DONE[action]}`);

export interface SubscriptionDeps {
  db: SubscriptionRepo;
  clock: Clock;
  /** Whether the owner has a profile, held from its delete until the grant commits (the profiles service). */
  holdsProfile: (tx: Tx, ownerId: string, profileId: string) => Promise<boolean>;
  /** The card builder's comparison (the profiles service): kinds of detail between two rendered cards. */
  changesBetween: (before: string, after: string) => string[];
}

/**
 * What every part of the subscriptions service shares: the membership hook, the owner's reads,
 * the signals of a status change, and one row of the state table applied (states.ts).
 */
export function createSubscriptionCore(deps: SubscriptionDeps) {
  const { db, clock } = deps;
  const membership = txHook<MembershipChange>();
  /**
   * What a subscriber sees of a subscription may have changed (its status as they read it, its
   * profile): approved, moved, revoked, unsubscribed, ended unanswered. Another region holding
   * one side of it hears of it from here (decision 352); silent changes are not told.
   */
  const seen = txHook<{ ownerId: string; subscriberId: string }>();
  /** A subscription as its owner may see it: never a blocked person's request (silenced). */
  const findAsOwner = (q: ReturnType<SubscriptionRepo['in']> | SubscriptionRepo['direct'], ownerId: string, id: string) => q.subs.find('owner', ownerId, id, STATUSES);

  async function mustFind(tx: Tx, ownerId: string, id: string) {
    const row = await findAsOwner(db.in(tx), ownerId, id);
    if (!row) throw subscriptionNotFound();
    return row;
  }

  /** Signals both sides of a status change. */
  async function statusChanged(tx: Tx, row: SubscriptionRecord): Promise<void> {
    await signal(tx, row.owner_id, 'subscriptions.changed');
    await signal(tx, row.subscriber_id, 'contacts.changed');
    await seen.run(tx, { ownerId: row.owner_id, subscriberId: row.subscriber_id });
  }

  /**
   * Before a subscription is put onto a profile: takes the owner's account lock (with the owner's
   * signal, written now rather than after) and then the profile's row lock, the order a profile's
   * delete takes them in. A delete that came first has committed by then and the profile is
   * gone (404); one that comes later waits, then moves this subscriber along.
   */
  async function holdProfile(tx: Tx, ownerId: string, profileId: string): Promise<void> {
    await signal(tx, ownerId, 'subscriptions.changed');
    // Another account's profile answers like an unknown one (404, never 403).
    if (!(await deps.holdsProfile(tx, ownerId, profileId))) throw refuse('profile_not_found', 'you have no profile with this id');
  }

  /**
   * Moving from one profile's card to another's: whether what the subscriber sees changes, and
   * which kinds of detail did (JSON, stored with the move and served as the card's `changed`).
   */
  async function moveBetween(tx: Tx, fromProfile: string | null, toProfile: string): Promise<{ differs: boolean; cardChanges: string }> {
    const q = db.in(tx);
    const [from, to] = [await q.subs.renderedCard(fromProfile), await q.subs.renderedCard(toProfile)];
    const differs = from?.card_hash !== to?.card_hash;
    return { differs, cardChanges: JSON.stringify(from && to && differs ? deps.changesBetween(from.card_json, to.card_json) : []) };
  }

  /** Applies one row of the state table, or says why not: 404 when not the owner's, 409 otherwise. */
  async function apply(tx: Tx, auth: AuthContext, id: string, action: Exclude<Action, 'unsubscribe'>, changes: { profile_id?: string; card_since?: number; card_changes?: string } = {}): Promise<{ before: SubscriptionRecord; after: SubscriptionRecord }> {
    const before = await mustFind(tx, auth.account.id, id);
    const rule = TRANSITIONS[action];
    // A denial is silent (PRODUCT §4): the subscriber's view does not move, its version included.
    const after = await db.in(tx).subs.transition('owner', auth.account.id, id, rule.from, { status: rule.to, ...changes }, clock.now(), action === 'deny');
    // The row moved on since it was read (a racing transition won): refused like any other.
    if (!after) throw invalidTransition((await mustFind(tx, auth.account.id, id)).status, action);
    return { before, after };
  }

  async function view(tx: Tx, ownerId: string, id: string): Promise<SubscriptionView> {
    return subscriptionView((await findAsOwner(db.in(tx), ownerId, id))!);
  }

  return { db, clock, membership, seen, findAsOwner, mustFind, statusChanged, holdProfile, moveBetween, apply, view };
}

export type SubscriptionCore = ReturnType<typeof createSubscriptionCore>;
