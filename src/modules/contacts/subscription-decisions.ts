import type { AuthContext } from '../../platform/caller.js';
import { refuse } from '../../platform/errors.js';
import { signal } from '../../platform/signals/signal.js';
import { page } from '../../platform/store/keyset.js';
import type { Page } from '../../platform/store/keyset.js';
import { isActive, STATUSES, TRANSITIONS } from './states.js';
import type { SubscriptionStatus } from './states.js';
import { FIRST_CARD, subscriptionNotFound } from './subscription-core.js';
import type { BlockView, SubscriptionCore } from './subscription-core.js';
import { subscriptionView } from './views.js';
import type { SubscriptionView } from './views.js';

/**
 * The owner's side (PRODUCT §4): its subscriptions listed, and its decisions on each (approve,
 * deny, move, revoke), and its blocks, each one conditional update from the state table.
 */
export function createSubscriptionDecisions(core: SubscriptionCore) {
  const { db, clock, membership, seen, findAsOwner, holdProfile, moveBetween, apply, statusChanged, view } = core;

  return {
    async list(auth: AuthContext, status: SubscriptionStatus | undefined, cursor: string | undefined, limit: number): Promise<Page<SubscriptionView>> {
      return page((after, size) => db.direct.subs.list('owner', auth.account.id, { statuses: status ? [status] : STATUSES }, after, size), cursor, limit, subscriptionView);
    },

    async get(auth: AuthContext, id: string): Promise<SubscriptionView> {
      const row = await findAsOwner(db.direct, auth.account.id, id);
      if (!row) throw subscriptionNotFound();
      return subscriptionView(row);
    },

    /** pending → active on one of the owner's profiles. */
    async approve(auth: AuthContext, id: string, profileId: string): Promise<SubscriptionView> {
      return db.transaction(async (_, tx) => {
        await holdProfile(tx, auth.account.id, profileId);
        const { after } = await apply(tx, auth, id, 'approve', { profile_id: profileId, card_since: clock.now(), card_changes: FIRST_CARD });
        await signal(tx, after.subscriber_id, 'contacts.changed');
        await seen.run(tx, { ownerId: after.owner_id, subscriberId: after.subscriber_id });
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
        if (current !== undefined && isActive(current.status) && current.profile_id === profileId) return subscriptionView(current);
        await holdProfile(tx, auth.account.id, profileId);
        // Read under the owner's lock (holdProfile took it): no other transition of theirs runs until this commits.
        const leaving = await findAsOwner(q, auth.account.id, id);
        const move = await moveBetween(tx, leaving?.profile_id ?? null, profileId);
        const { after } = await apply(tx, auth, id, 'move', { profile_id: profileId, card_since: clock.now(), card_changes: move.cardChanges });
        if (move.differs) await signal(tx, after.subscriber_id, 'contact.card.changed', { id: after.id });
        await seen.run(tx, { ownerId: after.owner_id, subscriberId: after.subscriber_id });
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
      return page((after, size) => db.direct.blocks.list(auth.account.id, after, size), cursor, limit, (row) => ({ username: row.username, display_name: row.display_name, region: row.region, blocked_at: new Date(row.created_at).toISOString() }));
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

  };
}
