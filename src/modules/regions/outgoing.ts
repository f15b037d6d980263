import type { Tx } from '../../platform/store/store.js';
import { parseSubject } from './deliveries.js';
import type { Delivery } from './deliveries.js';
import type { RegionContext } from './context.js';
import type { OutboxRow } from './queries.js';

/** What this region tells a peer of one outbox subject: its state as it is when sent (decision 352). */
export function createOutgoing(ctx: RegionContext) {
  const { db, deps, here, remote } = ctx;

  /** The state of one outbox subject, as `region` is told it now; nothing when it no longer concerns it. */
  async function deliveriesOf(tx: Tx, region: string, row: OutboxRow): Promise<Delivery[]> {
    const people = db.in(tx).people;
    const what = parseSubject(row.subject);
    if (!what) return [];
    if (what.kind === 'pair') {
      const [owner, subscriber] = [await people.byId(what.ownerId), await people.byId(what.subscriberId)];
      if (!owner || !subscriber) return [];
      if (owner.region === here && subscriber.region === region) {
        return (await remote.ownerSideStates(tx, owner, subscriber)).map((subscription) => ({ kind: 'subscription', from: 'owner', subscription }));
      }
      if (subscriber.region === here && owner.region === region) {
        return (await remote.subscriberSideEnded(tx, owner, subscriber)).map((subscription) => ({ kind: 'subscription', from: 'subscriber', subscription }));
      }
      return [];
    }
    if (what.kind === 'card') {
      const card = await deps.cards.cardForDelivery(tx, what.profileId);
      const owner = card && (await people.byId(card.account_id));
      if (!card || !owner || owner.region !== here) return [];
      return [{ kind: 'card', owner: owner.username, card: { id: what.profileId, card_json: card.card_json, card_hash: card.card_hash, card_updated_at: Number(card.card_updated_at) } }];
    }
    if (what.kind === 'owner') {
      const owner = await people.byId(what.ownerId);
      if (!owner || owner.region !== here) return [];
      const account: Delivery = { kind: 'account', username: owner.username, display_name: owner.display_name, deleted: owner.deleted_at !== null, locked: owner.locked_at !== null, gone: owner.purged_at !== null, version: owner.version };
      const states = await remote.ownerSideStatesFor(tx, owner, region);
      return [account, ...states.map((subscription): Delivery => ({ kind: 'subscription', from: 'owner', subscription }))];
    }
    return [{ kind: 'account', username: what.username, display_name: null, deleted: true, locked: false, gone: true, version: Number.MAX_SAFE_INTEGER }];
  }

  return { deliveriesOf };
}
