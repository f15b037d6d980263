import { refuse } from '../../platform/errors.js';
import { signal, signalSelected } from '../../platform/signals/signal.js';
import type { Tx } from '../../platform/store/store.js';
import type { ProfileRemoval } from '../profiles/service.js';
import { LIVE_TO_SUBSCRIBER } from './states.js';
import type { MembershipChange, SubscriptionCore } from './subscription-core.js';

/**
 * What subscriptions do when something else changes (wired in wiring.ts): the owner's account
 * deleted, restored, locked or unlocked; a profile removed; and who receives an owner's card
 * told to those who keep copies of it (the address book).
 */
export function createSubscriptionReactions(core: SubscriptionCore) {
  const { db, clock, membership, moveBetween } = core;

  return {
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
    /** Subscribe to: what a subscriber sees of one subscription may have changed (another region's copy follows, decision 352). */
    onSeenChanged: core.seen.subscribe,
    /** The subscriber's side tells it too (an unsubscription), in its transaction (the seen hook). */
    seenChanged: (tx: Tx, change: { ownerId: string; subscriberId: string }) => core.seen.run(tx, change),
    /** The subscriber's side tells it too (an unsubscription), in its transaction. */
    membershipChanged: (tx: Tx, change: MembershipChange) => membership.run(tx, change),

    /** Active subscribers per profile (Profile.subscriber_count); a keyed request's own writes included (`current`: it answers with them). */
    countsByProfile: (accountId: string, profileIds: string[]) => db.current.subs.countsByProfile(accountId, profileIds),
  };
}
