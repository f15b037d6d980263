import type { SelectQueryBuilder } from 'kysely';
import type { AuthContext } from '../../platform/caller.js';
import type { Clock } from '../../platform/clock.js';
import { refuse } from '../../platform/errors.js';
import { txHook } from '../../platform/hooks.js';
import { newId } from '../../platform/ids.js';
import { signal, signalSelected } from '../../platform/signals/signal.js';
import type { accountQueries } from '../../platform/store/accounts.js';
import { page } from '../../platform/store/keyset.js';
import type { Page } from '../../platform/store/keyset.js';
import { uniqueViolation } from '../../platform/store/store.js';
import type { RepositoryOf, Tx } from '../../platform/store/store.js';
import { cleanText } from '../../platform/text.js';
import type { ProfileRemoval } from '../profiles/service.js';
import type { annotationQueries, blockQueries, SubscriptionRecord, subscriptionQueries } from './queries.js';
import { LIVE_TO_SUBSCRIBER, STATUSES, TRANSITIONS, UNANSWERED_DAYS } from './states.js';
import type { Action, SubscriptionStatus } from './states.js';
import { subscriptionView } from './views.js';
import type { SubscriptionView } from './views.js';

export const CONTACT_LIMITS = { requestsPerDay: 50, contactsPerAccount: 5000, messageLength: 280 } as const;
const DAY_MS = 86_400_000;
/** What changed for someone whose first card this is: nothing they saw before (the card's `changed`). */
const FIRST_CARD = '[]';

export interface BlockView {
  username: string;
  display_name: string | null;
  blocked_at: string;
}

/** How a subscription comes about: a request by username, or a redeemed share link. */
export interface SubscribeInput {
  ownerId: string;
  message?: string | null;
  /** A share link's grant: its profile, whether it approves at once, and the owner's label for it. */
  link?: { id: string; profileId: string; autoApprove: boolean; label: string | null };
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

type Repo = RepositoryOf<{ subs: typeof subscriptionQueries; blocks: typeof blockQueries; annotations: typeof annotationQueries; accounts: typeof accountQueries }>;

const notFound = () => refuse('subscription_not_found', 'no subscription to you has this id');
const DONE: Record<Action, string> = { approve: 'approved', deny: 'denied', move: 'moved', revoke: 'revoked', unsubscribe: 'ended', unblock: 'let through', expire: 'ended' };
export const invalidTransition = (status: string, action: Action) => refuse('invalid_transition', `a ${status} subscription cannot be ${DONE[action]}`);

/**
 * Subscriptions, the owner's side (PRODUCT §4), and subscribing itself. Every transition is one
 * conditional update from the state table (states.ts); its signals go in the same transaction:
 * subscriptions.changed to the owner, contacts.changed to the subscriber, contact.card.changed
 * when a move changed what the subscriber sees. (An edit of a card is not told here: it is one
 * row of the card-change log that every follower's feed reads, decision 220.)
 */
export function createSubscriptionService(deps: {
  db: Repo;
  clock: Clock;
  /** Whether the owner has a profile, held from its delete until the grant commits (the profiles service). */
  holdsProfile: (tx: Tx, ownerId: string, profileId: string) => Promise<boolean>;
  /** The card builder's comparison (the profiles service): kinds of detail between two rendered cards. */
  changesBetween: (before: string, after: string) => string[];
}) {
  const { db, clock } = deps;
  const membership = txHook<MembershipChange>();

  /** A subscription as its owner may see it: never a blocked person's request (silenced). */
  const findAsOwner = (q: ReturnType<Repo['in']> | Repo['direct'], ownerId: string, id: string) => q.subs.find('owner', ownerId, id, STATUSES);

  async function mustFind(tx: Tx, ownerId: string, id: string) {
    const row = await findAsOwner(db.in(tx), ownerId, id);
    if (!row) throw notFound();
    return row;
  }

  /** Signals both sides of a status change. */
  async function statusChanged(tx: Tx, row: SubscriptionRecord): Promise<void> {
    await signal(tx, row.owner_id, 'subscriptions.changed');
    await signal(tx, row.subscriber_id, 'contacts.changed');
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

  return {
    /**
     * A subscription request (PRODUCT §4) or a redeemed share link (§6): pending, or active at once
     * for a link that approves automatically. Returns the new subscription's id.
     */
    async subscribe(tx: Tx, subscriber: AuthContext, input: SubscribeInput): Promise<string> {
      const q = db.in(tx);
      const subscriberId = subscriber.account.id;
      if (input.ownerId === subscriberId) throw refuse('cannot_subscribe_to_self', 'you cannot subscribe to yourself');
      let message: string | null = null;
      if (input.message) {
        const cleaned = cleanText(input.message, { path: '/message', max: CONTACT_LIMITS.messageLength, multiline: true });
        if (!cleaned.ok) throw refuse('validation_failed', { detail: cleaned.error.message, errors: [cleaned.error] });
        message = cleaned.text || null;
      }
      // Silent refusals (PRODUCT §4): a person the owner blocked asks like anyone else and hears
      // what anyone hears (201 pending), but the request is silenced: the owner never sees it and
      // is never told. Read before any lock: a block made or lifted at this moment may go either way.
      const silenced = await q.blocks.isBlocked(input.ownerId, subscriberId);
      // The signals go first: they lock the accounts' rows, so the limits below and the pair
      // check cannot race another request of the same subscriber. In id order, as every fan-out
      // takes rows: two people asking one owner at once queue on the owner's row instead of each
      // holding its own and waiting for the other's (a deadlock on PostgreSQL). A silenced
      // request tells (and locks) only its maker.
      const told: Array<[string, 'contacts.changed' | 'subscriptions.changed']> = [[subscriberId, 'contacts.changed']];
      if (!silenced) told.push([input.ownerId, 'subscriptions.changed']);
      for (const [account, kind] of told.sort(([a], [b]) => (a < b ? -1 : 1))) await signal(tx, account, kind);
      // A denied or silenced request looks pending to its maker: asking again is "already waiting".
      const live = await q.subs.findLive(input.ownerId, subscriberId, LIVE_TO_SUBSCRIBER);
      if (live) throw refuse('already_subscribed', { detail: 'you are subscribed already, or your request is waiting', extensions: { contact_id: live.id } });
      const now = clock.now();
      const recent = await q.subs.countRequestsSince(subscriberId, now - DAY_MS);
      if (recent.count >= CONTACT_LIMITS.requestsPerDay) {
        throw refuse('subscription_request_limit', {
          detail: `at most ${CONTACT_LIMITS.requestsPerDay} new subscriptions a day`,
          retryAfterSeconds: Math.max(1, Math.ceil(((recent.oldest ?? now) + DAY_MS - now) / 1000)),
        });
      }
      if ((await q.subs.countLive(subscriberId, LIVE_TO_SUBSCRIBER)) >= CONTACT_LIMITS.contactsPerAccount) {
        throw refuse('contact_limit', `an account holds at most ${CONTACT_LIMITS.contactsPerAccount} contacts; unsubscribe from some first`);
      }
      const active = input.link?.autoApprove === true && !silenced;
      const row: SubscriptionRecord = {
        id: newId('sub'),
        owner_id: input.ownerId,
        subscriber_id: subscriberId,
        profile_id: active ? input.link!.profileId : null,
        status: active ? 'active' : silenced ? 'silenced' : 'pending',
        silent_changes: 0,
        message,
        share_link_id: input.link?.id ?? null,
        share_link_label: input.link?.label ?? null,
        suggested_profile_id: input.link?.profileId ?? null,
        version: 1,
        created_at: now,
        updated_at: now,
        card_since: active ? now : null,
        // A first card: nothing the subscriber saw before has changed.
        card_changes: active ? FIRST_CARD : null,
        hidden_at: null,
      };
      try {
        await q.subs.insert(row);
      } catch (error) {
        // The owner's side raced us (a link and a request at once): the unique pair index decides.
        if (uniqueViolation(error)) throw refuse('already_subscribed', { detail: 'you are subscribed already, or your request is waiting', extensions: { contact_id: (await q.subs.findLive(input.ownerId, subscriberId, LIVE_TO_SUBSCRIBER))?.id ?? '' } });
        throw error;
      }
      if (active) await membership.run(tx, { ownerId: input.ownerId, subscriberId });
      return row.id;
    },

    async list(auth: AuthContext, status: SubscriptionStatus | undefined, cursor: string | undefined, limit: number): Promise<Page<SubscriptionView>> {
      return page((after, size) => db.direct.subs.list('owner', auth.account.id, { statuses: status ? [status] : STATUSES }, after, size), cursor, limit, subscriptionView);
    },

    async get(auth: AuthContext, id: string): Promise<SubscriptionView> {
      const row = await findAsOwner(db.direct, auth.account.id, id);
      if (!row) throw notFound();
      return subscriptionView(row);
    },

    /** pending → active on one of the owner's profiles. */
    async approve(auth: AuthContext, id: string, profileId: string): Promise<SubscriptionView> {
      return db.transaction(async (_, tx) => {
        await holdProfile(tx, auth.account.id, profileId);
        const { after } = await apply(tx, auth, id, 'approve', { profile_id: profileId, card_since: clock.now(), card_changes: FIRST_CARD });
        await signal(tx, after.subscriber_id, 'contacts.changed');
        await membership.run(tx, { ownerId: after.owner_id, subscriberId: after.subscriber_id });
        return view(tx, auth.account.id, id);
      });
    },

    /**
     * pending → denied; with `block`, this person's later requests are silenced. Silent (PRODUCT
     * §4): the person who asked is not told, and their request still reads pending to them.
     */
    async deny(auth: AuthContext, id: string, block: boolean): Promise<SubscriptionView> {
      return db.transaction(async (q, tx) => {
        const { after } = await apply(tx, auth, id, 'deny');
        if (block) await q.blocks.block(auth.account.id, after.subscriber_id, clock.now());
        await signal(tx, after.owner_id, 'subscriptions.changed');
        return view(tx, auth.account.id, id);
      });
    },

    /** active → active on another profile: the subscriber's card changes, and they are told. */
    async move(auth: AuthContext, id: string, profileId: string): Promise<SubscriptionView> {
      return db.transaction(async (q, tx) => {
        // Already there: nothing changes and nobody is told.
        const current = await findAsOwner(q, auth.account.id, id);
        if (current?.status === 'active' && current.profile_id === profileId) return subscriptionView(current);
        await holdProfile(tx, auth.account.id, profileId);
        // Read under the owner's lock (holdProfile took it): no other transition of theirs runs until this commits.
        const leaving = await findAsOwner(q, auth.account.id, id);
        const move = await moveBetween(tx, leaving?.profile_id ?? null, profileId);
        const { after } = await apply(tx, auth, id, 'move', { profile_id: profileId, card_since: clock.now(), card_changes: move.cardChanges });
        if (move.differs) await signal(tx, after.subscriber_id, 'contact.card.changed', { id: after.id });
        await membership.run(tx, { ownerId: after.owner_id, subscriberId: after.subscriber_id });
        return view(tx, auth.account.id, id);
      });
    },

    /** active → revoked: the subscriber's card is gone; with `block`, they cannot ask again. */
    async revoke(auth: AuthContext, id: string, block: boolean): Promise<SubscriptionView> {
      return db.transaction(async (q, tx) => {
        const { after } = await apply(tx, auth, id, 'revoke');
        if (block) await q.blocks.block(auth.account.id, after.subscriber_id, clock.now());
        await statusChanged(tx, after);
        await membership.run(tx, { ownerId: after.owner_id, subscriberId: after.subscriber_id });
        return view(tx, auth.account.id, id);
      });
    },

    async blocks(auth: AuthContext, cursor: string | undefined, limit: number): Promise<Page<BlockView>> {
      return page((after, size) => db.direct.blocks.list(auth.account.id, after, size), cursor, limit, (row) => ({ username: row.username, display_name: row.display_name, blocked_at: new Date(row.created_at).toISOString() }));
    },

    /**
     * Lifts a block. A request the person made meanwhile, which the owner never saw (silenced),
     * arrives now as any request does; to its maker it was pending all along.
     */
    async unblock(auth: AuthContext, username: string, canonical: string | undefined): Promise<void> {
      const blocked = canonical ? await db.direct.accounts.findByCanonical(canonical) : undefined;
      if (!blocked) throw refuse('block_not_found', `you have not blocked ${username}`);
      await db.transaction(async (q, tx) => {
        if (!(await q.blocks.unblock(auth.account.id, blocked.id))) throw refuse('block_not_found', `you have not blocked ${username}`);
        const rule = TRANSITIONS.unblock;
        if ((await q.subs.letThrough(auth.account.id, blocked.id, rule.from[0], rule.to, clock.now())) > 0) await signal(tx, auth.account.id, 'subscriptions.changed');
      });
    },

    /**
     * Requests left waiting end after UNANSWERED_DAYS (PRODUCT §4), denied and silenced ones
     * alike, so silence and refusal look the same to the people who asked: each is told its
     * request ended; an owner is told of those it could see. A batch a run (the maintenance
     * calls it every minute on every node; each row ends once).
     */
    async endUnanswered(now: number, batch = 500): Promise<number> {
      const rule = TRANSITIONS.expire;
      return db.transaction(async (q, tx) => {
        let ended = 0;
        for (const from of rule.from) {
          const rows = await q.subs.endWaiting(from, now - UNANSWERED_DAYS * DAY_MS, rule.to, now, batch);
          const told: Array<[string, 'contacts.changed' | 'subscriptions.changed']> = [...new Set(rows.map((row) => row.subscriber_id))].map((id) => [id, 'contacts.changed']);
          if (from !== 'silenced') told.push(...[...new Set(rows.map((row) => row.owner_id))].map((id): [string, 'subscriptions.changed'] => [id, 'subscriptions.changed']));
          // In id order, as every fan-out locks rows.
          for (const [account, kind] of told.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) await signal(tx, account, kind);
          ended += rows.length;
        }
        return ended;
      });
    },

    /**
     * The owner's account was deleted or restored (PRODUCT §8): everyone subscribed to them sees
     * their contact turn `unavailable` or come back, and is told, set-based.
     */
    async ownerAvailabilityChanged(tx: Tx, ownerId: string): Promise<void> {
      await signalSelected(tx, db.in(tx).subs.subscribersOf(ownerId, LIVE_TO_SUBSCRIBER), 'contacts.changed');
      // What the owner's active subscribers see went or came back: one change per profile they receive.
      await membership.run(tx, { ownerId, profileIds: await db.in(tx).subs.profilesReceivedFrom(ownerId) });
    },

    /**
     * A profile is about to be deleted: its active subscribers move to `moveTo` (their cards
     * change, they are told); without one, a profile someone sees cannot go (409 profile_in_use).
     */
    async profileRemoving(tx: Tx, removal: ProfileRemoval): Promise<void> {
      const q = db.in(tx);
      // Requests that came through the profile's links suggest where those links go now.
      await q.subs.moveSuggestions(removal.accountId, removal.profileId, removal.moveTo ?? null);
      const seen = await q.subs.countActive(removal.accountId, removal.profileId);
      if (seen === 0) return;
      if (!removal.moveTo) {
        throw refuse('profile_in_use', `${seen} active subscriber${seen === 1 ? ' sees' : 's see'} this profile: delete it with move_to naming another of your profiles`);
      }
      // Those about to move are told, before the move, while they are still the profile's subscribers.
      const move = await moveBetween(tx, removal.profileId, removal.moveTo);
      const moving = q.subs.activeSubscribersOf(removal.accountId, [removal.profileId]);
      if (move.differs) await signalSelected(tx, moving, 'contact.card.changed');
      // Each one moved is let in to moveTo now, as a move of one is: a row of its own, so the
      // edits of moveTo made before it are not its to hear of. Written while they can still be
      // told apart from moveTo's own subscribers, so before the move, not last.
      await membership.run(tx, { ownerId: removal.accountId, eachOf: moving });
      await q.subs.moveAll(removal.accountId, removal.profileId, removal.moveTo, clock.now(), move.cardChanges);
      await signal(tx, removal.accountId, 'subscriptions.changed');
    },

    /** Subscribe to: who receives an owner's card, or which, changed (PRODUCT §9; wired in wiring.ts). */
    onMembershipChanged: membership.subscribe,
    /** The subscriber's side tells it too (an unsubscription), in its transaction. */
    membershipChanged: (tx: Tx, change: MembershipChange) => membership.run(tx, change),

    /** Active subscribers per profile (Profile.subscriber_count); a keyed request's own writes included (`current`: it answers with them). */
    countsByProfile: (accountId: string, profileIds: string[]) => db.current.subs.countsByProfile(accountId, profileIds),
  };
}

export type SubscriptionService = ReturnType<typeof createSubscriptionService>;
