import type { AuthContext } from '../../platform/caller.js';
import { refuse } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { signal } from '../../platform/signals/signal.js';
import { uniqueViolation } from '../../platform/store/store.js';
import type { Tx } from '../../platform/store/store.js';
import { cleanText } from '../../platform/text.js';
import type { SubscriptionRecord } from './queries.js';
import { ACTIVE, LIVE_TO_SUBSCRIBER, TRANSITIONS, UNANSWERED_DAYS } from './states.js';
import { CONTACT_LIMITS, DAY_MS, FIRST_CARD } from './subscription-core.js';
import type { SubscribeInput, SubscriptionCore } from './subscription-core.js';

/**
 * Requests (PRODUCT §4, §6): made by username or through a share link, silenced when the owner
 * blocked their maker, and ended when left waiting too long.
 */
export function createSubscriptionRequests(core: SubscriptionCore) {
  const { db, clock, membership, seen } = core;

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
        status: active ? ACTIVE : silenced ? 'silenced' : 'pending',
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
        subscriber_region: input.subscriberRegion ?? null,
        remote_version: null,
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
          for (const row of rows) await seen.run(tx, { ownerId: row.owner_id, subscriberId: row.subscriber_id });
          ended += rows.length;
        }
        return ended;
      });
    },

  };
}
