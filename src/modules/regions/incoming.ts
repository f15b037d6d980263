import { refuse } from '../../platform/errors.js';
import type { Tx } from '../../platform/store/store.js';
import type { Delivery } from './deliveries.js';
import type { RegionContext } from './context.js';

/** What this region does with a peer's word (decision 352): each delivery applied, old news left, or refused. */
export function createIncoming(ctx: RegionContext) {
  const { db, deps, clock, remote, applying, standIn, local } = ctx;

  /** One delivery from `region`, in its own transaction: applied, unchanged (old news), or refused. */
  const apply = (region: string, delivery: Delivery): Promise<'applied' | 'unchanged'> => db.transaction((_, tx) => applyIn(tx, region, delivery));

  /**
   * One delivery from `region` in `tx`. `asked`: the answer to this region's own request
   * (follow), the one word that may create a contact here. A delivery never does: a peer cannot
   * hand anyone a contact they did not ask for (a request whose answer was lost is asked again,
   * and answered with the same one).
   */
  async function applyIn(tx: Tx, region: string, delivery: Delivery, asked = false): Promise<'applied' | 'unchanged'> {
    const q = db.in(tx);
    applying.add(tx);
    if (delivery.kind === 'subscription') {
      const state = delivery.subscription;
      if (delivery.from === 'subscriber') {
        const owner = await local(tx, state.owner.username);
        const subscriber = await q.people.byName(state.subscriber, region);
        if (!owner || !subscriber) throw refuse('region_subject_mismatch', 'this subscription is not one between that region and this one');
        return remote.endedInRegion(tx, state, owner, subscriber);
      }
      const subscriber = await local(tx, state.subscriber);
      // Purged here meanwhile: nobody left to tell.
      if (!subscriber || subscriber.purged_at !== null) return 'unchanged';
      const owner = await standIn(tx, state.owner.username, region, state.owner.display_name);
      return remote.applyFromRegion(tx, state, owner, subscriber, region, asked);
    }
    if (delivery.kind === 'card') {
      const owner = await q.people.byName(delivery.owner, region);
      if (!owner) return 'unchanged';
      const held = await deps.cards.cardForDelivery(tx, delivery.card.id);
      // Nobody here receives this card (yet): the subscription's own word brings its first copy.
      if (!held) return 'unchanged';
      if (held.account_id !== owner.id) throw refuse('region_subject_mismatch', 'this card is not that person\'s');
      // The card names its owner as they are now: so does the stand-in (the contact's `owner`).
      const named = (JSON.parse(delivery.card.card_json) as { owner?: { display_name?: unknown } }).owner?.display_name;
      if ((typeof named === 'string' || named === null) && named !== owner.display_name) await q.people.rename(owner.id, named);
      return (await deps.cards.storeCopy(tx, owner.id, region, delivery.card)) ? 'applied' : 'unchanged';
    }
    const owner = await q.people.byName(delivery.username, region);
    if (!owner) return 'unchanged';
    if (delivery.gone) {
      await deps.subscriptions.ownerAvailabilityChanged(tx, owner.id);
      await q.people.remove(owner.id);
      return 'applied';
    }
    // Its account's version, kept as the stand-in's: an older word (sent twice, or late) changes nothing.
    if (delivery.version <= owner.version) return 'unchanged';
    const state = { version: delivery.version, display_name: delivery.display_name, deleted_at: delivery.deleted ? owner.deleted_at ?? clock.now() : null, locked_at: delivery.locked ? owner.locked_at ?? clock.now() : null };
    const changed = (state.deleted_at === null) !== (owner.deleted_at === null) || (state.locked_at === null) !== (owner.locked_at === null);
    await q.people.setState(owner.id, state);
    if (changed) await deps.subscriptions.ownerAvailabilityChanged(tx, owner.id);
    return changed || state.display_name !== owner.display_name ? 'applied' : 'unchanged';
  }

  return { apply, applyIn };
}

export type Incoming = ReturnType<typeof createIncoming>;
