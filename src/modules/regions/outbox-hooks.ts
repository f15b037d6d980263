import type { Tx } from '../../platform/store/store.js';
import { subject } from './deliveries.js';
import type { RegionContext } from './context.js';

/**
 * The hooks that fill the outbox, in the transaction of each change (decision 352): what a
 * subscriber elsewhere sees, an owner's whole audience, a card with followers elsewhere, a purge.
 */
export function createOutboxHooks(ctx: RegionContext) {
  const { db, here, peers, remote, applying, enqueue } = ctx;

  return {
    /** Hook (subscriptions' onSeenChanged): a subscription one side of which is elsewhere changed for its subscriber. */
    async seenChanged(tx: Tx, pair: { ownerId: string; subscriberId: string }): Promise<void> {
      if (applying.has(tx) || peers.length === 0) return;
      const people = db.in(tx).people;
      const [owner, subscriber] = [await people.byId(pair.ownerId), await people.byId(pair.subscriberId)];
      if (!owner || !subscriber) return;
      const elsewhere = owner.region !== here ? owner.region : subscriber.region !== here ? subscriber.region : undefined;
      if (elsewhere !== undefined && peers.includes(elsewhere)) await enqueue(tx, elsewhere, subject.pair(owner.id, subscriber.id));
    },

    /**
     * Hook (subscriptions' onMembershipChanged): all of an owner's audience changed (their account,
     * a profile's removal), told to the regions of their followers; or one follower's, here.
     */
    async audienceChanged(tx: Tx, change: { ownerId: string } & ({ subscriberId: string } | object)): Promise<void> {
      if (peers.length === 0) return;
      if ('subscriberId' in change) {
        // A follower here of another region's owner stopped receiving a card by a change made
        // here (an unsubscription, which the owner's region does not answer): the copy goes as
        // soon as nobody here receives it, not when that region next speaks (decision 352).
        const owner = await db.in(tx).people.byId(change.ownerId);
        if (owner && owner.region !== here) await remote.keepReceivedCopies(tx, owner.id);
        return;
      }
      if (applying.has(tx)) return;
      for (const region of await remote.subscriberRegionsOf(tx, change.ownerId)) if (peers.includes(region)) await enqueue(tx, region, subject.owner(change.ownerId));
    },

    /** Hook (profiles' onCardsChanged): one delivery per region with followers of each card, never one per follower. */
    async cardsChanged(tx: Tx, change: { accountId: string; profileIds: string[] }): Promise<void> {
      if (applying.has(tx) || peers.length === 0) return;
      for (const hit of await remote.remoteAudience(tx, change.profileIds, peers)) await enqueue(tx, hit.region, subject.card(hit.profile_id));
    },

    /** Before an account here is purged: the regions holding one side of its subscriptions hear it is gone. */
    async purging(tx: Tx, accountId: string): Promise<void> {
      if (peers.length === 0) return;
      const account = await db.in(tx).people.byId(accountId);
      if (!account || account.region !== here) return;
      for (const region of await remote.regionsOf(tx, account.id, here)) if (peers.includes(region)) await enqueue(tx, region, subject.gone(account.username));
    },

  };
}
