import type { AuthContext } from '../../platform/caller.js';
import type { Clock } from '../../platform/clock.js';
import { AppError, refuse } from '../../platform/errors.js';
import { signal } from '../../platform/signals/signal.js';
import type { AccountRecord } from '../../platform/store/accounts.js';
import type { Tx } from '../../platform/store/store.js';
import type { ProfileService } from '../profiles/service.js';
import type { SubscriptionRecord } from './queries.js';
import { ENDED, isActive, LIVE_TO_SUBSCRIBER, SEEN_BY_SUBSCRIBER, TRANSITIONS } from './states.js';
import type { SubscriptionStatus } from './states.js';
import type { SubscriptionRepo } from './subscription-core.js';
import type { SubscriptionService } from './subscriptions.js';

/** A card copy as it travels between regions: the owner's profile id, its rendered card, when it last changed. */
export interface TravellingCard {
  id: string;
  card_json: string;
  card_hash: string;
  card_updated_at: number;
}

/**
 * A subscription as the owner's region tells the subscriber's (decision 352): only what the
 * subscriber may see of it (PRODUCT §4, silent refusals: a denied or silenced request reads
 * pending, its version counts nothing silent), and the card of its profile while active. The
 * subscriber's region tells the owner's the same shape back, of which only `ended` counts (an
 * unsubscription is the one change a subscriber makes).
 */
export interface TravellingSubscription {
  id: string;
  owner: { username: string; display_name: string | null };
  subscriber: string;
  status: 'pending' | 'active' | 'revoked' | 'ended';
  version: number;
  message: string | null;
  created_at: number;
  updated_at: number;
  card_since: number | null;
  card_changes: string | null;
  card: TravellingCard | null;
  /**
   * Active on a card sent earlier in the same request (an owner-wide delivery names each card
   * once, whatever the number of followers it has there): its id, with `card` null.
   */
  card_id?: string;
}

type DeliveryRow = SubscriptionRecord & { subscriber_username: string; card_json: string | null; card_hash: string | null; card_updated_at: number | null };

/** A refusal of another region's delivery: the subject is not what that region may speak of. */
export const subjectMismatch = () => refuse('region_subject_mismatch', 'this subscription is not one between that region and this one');

/**
 * Contacts across regions (PRODUCT §10, decision 352): one subscription held on both sides under
 * one id, the subscription in the owner's region, the contact in the subscriber's. This is the
 * contacts' half: what the owner's side tells, and what the subscriber's side does with it,
 * through the same state table, signals and hooks as a change within one region. Which region,
 * what travels and how it is signed is the regions module's.
 */
export function createRemoteContacts(deps: {
  db: SubscriptionRepo;
  clock: Clock;
  subscriptions: SubscriptionService;
  cards: Pick<ProfileService, 'storeCopy' | 'dropCopies' | 'cardForDelivery'>;
}) {
  const { db, clock, subscriptions } = deps;

  function travelling(row: DeliveryRow, owner: AccountRecord): TravellingSubscription {
    const seen = SEEN_BY_SUBSCRIBER[row.status as SubscriptionStatus];
    const active = isActive(row.status) && row.profile_id !== null && row.card_json !== null;
    return {
      id: row.id,
      owner: { username: owner.username, display_name: owner.display_name },
      subscriber: row.subscriber_username,
      status: seen as TravellingSubscription['status'],
      version: row.version - row.silent_changes,
      message: row.message,
      created_at: row.created_at,
      // Silent refusals: a request reads unanswered, as contactView says it.
      updated_at: seen === 'pending' ? row.created_at : row.updated_at,
      card_since: active ? row.card_since : null,
      card_changes: active ? row.card_changes : null,
      card: active ? { id: row.profile_id!, card_json: row.card_json!, card_hash: row.card_hash!, card_updated_at: Number(row.card_updated_at) } : null,
    };
  }

  /** The GC of copies: a stand-in keeps the cards its followers here receive, no other. */
  async function keepReceivedCopies(tx: Tx, ownerId: string): Promise<void> {
    await deps.cards.dropCopies(tx, ownerId, await db.in(tx).subs.profilesReceivedFrom(ownerId));
  }

  return {
    /** Owner's side: a pair's subscriptions as the subscriber's region is told them. */
    async ownerSideStates(tx: Tx, owner: AccountRecord, subscriber: AccountRecord): Promise<TravellingSubscription[]> {
      const rows = await db.in(tx).subs.forDelivery({ ownerId: owner.id, subscriberId: subscriber.id });
      return rows.map((row) => travelling(row, owner));
    },

    /** Owner's side: every subscription of an owner's subscribers from one region, with their names (one statement). */
    async ownerSideStatesFor(tx: Tx, owner: AccountRecord, region: string): Promise<TravellingSubscription[]> {
      const sent = new Set<string>();
      return (await db.in(tx).subs.forDelivery({ ownerId: owner.id, region })).map((row) => {
        const state = travelling(row, owner);
        // Each card once: the followers after the first on it name it.
        if (state.card === null) return state;
        if (sent.has(state.card.id)) return { ...state, card: null, card_id: state.card.id };
        sent.add(state.card.id);
        return state;
      });
    },

    /**
     * Subscriber's side: the pair's subscriptions the subscriber ended, which the owner's region
     * must end too; in `tx`, or (null) outside any, before a request opens its own.
     */
    async subscriberSideEnded(tx: Tx | null, owner: AccountRecord, subscriber: AccountRecord): Promise<TravellingSubscription[]> {
      const rows = await (tx ? db.in(tx) : db.direct).subs.forDelivery({ ownerId: owner.id, subscriberId: subscriber.id });
      return rows.filter((row) => row.status === 'ended').map((row) => ({ ...travelling(row, owner), card: null }));
    },

    /**
     * Owner's side: a request from a person of another region (its stand-in `subscriber`), as
     * POST /contacts makes one here: the same refusals, silenced when the owner blocked them.
     * Asked again while one is live, the live one answers (the subscriber's region may ask twice).
     */
    async requestFromRegion(tx: Tx, subscriber: AccountRecord, owner: AccountRecord, message: string | null, region: string): Promise<TravellingSubscription> {
      let id: string;
      try {
        id = await subscriptions.subscribe(tx, { account: subscriber } as AuthContext, { ownerId: owner.id, message, subscriberRegion: region });
      } catch (error) {
        if (!(error instanceof AppError) || error.code !== 'already_subscribed') throw error;
        id = (await db.in(tx).subs.findLive(owner.id, subscriber.id, LIVE_TO_SUBSCRIBER))!.id;
      }
      const [row] = await db.in(tx).subs.forDelivery({ id });
      return travelling(row!, owner);
    },

    /**
     * Owner's side: the subscriber's region says its person ended a subscription (unsubscribed):
     * ended here as DELETE /contacts/{id} ends it, told to the owner unless it never saw it.
     */
    async endedInRegion(tx: Tx, state: TravellingSubscription, owner: AccountRecord, subscriber: AccountRecord): Promise<'applied' | 'unchanged'> {
      const q = db.in(tx);
      const row = await q.subs.byId(state.id);
      if (!row || row.owner_id !== owner.id || row.subscriber_id !== subscriber.id) throw subjectMismatch();
      const rule = TRANSITIONS.unsubscribe;
      if (state.status !== 'ended' || !(rule.from as readonly string[]).includes(row.status)) return 'unchanged';
      const ended = await q.subs.transition('subscriber', subscriber.id, row.id, rule.from, { status: rule.to }, clock.now());
      if (!ended) return 'unchanged';
      if (row.status !== 'silenced') await signal(tx, owner.id, 'subscriptions.changed');
      if (isActive(row.status)) await subscriptions.membershipChanged(tx, { ownerId: owner.id, subscriberId: subscriber.id });
      return 'applied';
    },

    /**
     * Subscriber's side: a subscription as the owner's region says it is now, applied to the
     * contact under the same id (created by the answer to the subscriber's request), with the card copy it shows. Older than
     * what was applied (a delivery twice, or late): unchanged. Ended here by the subscriber, or
     * ended or revoked before: stays so (the end is on its way, or already there). Then signals
     * and hooks as a change here: contacts.changed, contact.card.changed when the card moved, and
     * the card-change log for the address book.
     */
    async applyFromRegion(tx: Tx, state: TravellingSubscription, owner: AccountRecord, subscriber: AccountRecord, region: string, asked: boolean): Promise<'applied' | 'unchanged'> {
      const q = db.in(tx);
      const row = await q.subs.byId(state.id);
      if (row && (row.owner_id !== owner.id || row.subscriber_id !== subscriber.id)) throw subjectMismatch();
      // Only the subscriber's own request makes a contact (decision 352); a word about one they never asked for names nothing here.
      if (!row && !asked) throw subjectMismatch();
      if (row && row.remote_version !== null && row.remote_version >= state.version) return 'unchanged';
      if (row && (ENDED as readonly string[]).includes(row.status)) return 'unchanged';
      if (state.card && !(await deps.cards.storeCopy(tx, owner.id, region, state.card))) throw subjectMismatch();
      // A card named by id was sent before in the same request: held here, and the owner's.
      if (!state.card && state.card_id !== undefined && (await deps.cards.cardForDelivery(tx, state.card_id))?.account_id !== owner.id) throw subjectMismatch();
      const status = state.status as SubscriptionStatus;
      const profileId = isActive(status) ? state.card?.id ?? state.card_id ?? null : row?.profile_id ?? null;
      const changes = { status, profile_id: profileId, message: state.message, updated_at: state.updated_at, card_since: state.card_since, card_changes: state.card_changes, remote_version: state.version };
      await signal(tx, subscriber.id, 'contacts.changed');
      if (row) await q.subs.setFromRegion(row.id, changes);
      else {
        await q.subs.insert({
          ...changes,
          id: state.id,
          owner_id: owner.id,
          subscriber_id: subscriber.id,
          share_link_id: null,
          share_link_label: null,
          suggested_profile_id: null,
          version: 1,
          created_at: state.created_at,
          hidden_at: null,
          silent_changes: 0,
          subscriber_region: null,
        });
      }
      const wasActive = row !== undefined && isActive(row.status);
      if (wasActive && isActive(status) && row.profile_id !== profileId) await signal(tx, subscriber.id, 'contact.card.changed', { id: state.id });
      if (wasActive || isActive(status)) await subscriptions.membershipChanged(tx, { ownerId: owner.id, subscriberId: subscriber.id });
      await keepReceivedCopies(tx, owner.id);
      return 'applied';
    },

    /** Whether a subscription of this id is held here (either side). */
    holds: async (tx: Tx, id: string): Promise<boolean> => (await db.in(tx).subs.byId(id)) !== undefined,

    /** Subscriber's side: the copies a stand-in's followers here no longer receive, dropped. */
    keepReceivedCopies,

    /** The peer regions with active followers of each of these profiles (one index probe each). */
    remoteAudience: (tx: Tx, profileIds: readonly string[], regions: readonly string[]) => db.in(tx).subs.remoteAudience(profileIds, regions),
    /** The regions an owner here has subscribers in. */
    subscriberRegionsOf: (tx: Tx, ownerId: string) => db.in(tx).subs.subscriberRegionsOf(ownerId),
    /** Every other region holding a side of one of this account's subscriptions (`here`: this region). */
    async regionsOf(tx: Tx, accountId: string, here: string): Promise<string[]> {
      const q = db.in(tx).subs;
      return [...new Set([...(await q.subscriberRegionsOf(accountId)), ...(await q.ownerRegionsOf(accountId, here))])];
    },
  };
}

export type RemoteContacts = ReturnType<typeof createRemoteContacts>;
