import type { AuthContext } from '../../platform/caller.js';
import { refuse } from '../../platform/errors.js';
import { splitName } from '../../platform/person-name.js';
import type { AccountRecord } from '../../platform/store/accounts.js';
import { outsideAnyUnit } from '../../platform/store/recorded-unit.js';
import type { TravellingSubscription } from '../contacts/remote.js';
import { isDelivery, subject } from './deliveries.js';
import type { Delivery } from './deliveries.js';
import type { RegionContext } from './context.js';
import type { Incoming } from './incoming.js';

/**
 * Following across regions (PRODUCT §10, decision 352): the follower's region asking the
 * owner's, and the owner's taking the request as one of its own.
 */
export function createFollowing(ctx: RegionContext, incoming: Incoming, heard: (region: string) => void) {
  const { db, deps, here, peers, remote, applying, standIn, local } = ctx;
  const { applyIn } = incoming;

  /**
   * Before asking `region`'s owner again: an unsubscription of this pair it has not heard of
   * yet (the pair's subject still waiting here, say while that region was away) is told first,
   * or the owner's region would answer with the request ended here as the live one.
   */
  async function tellWaitingEnd(region: string, ownerName: string, subscriber: AccountRecord): Promise<void> {
    // Read outside any transaction: a keyed POST /contacts opens its recorded unit only when it
    // stores the answer, and must not hold it open across the calls to the other region.
    const owner = await db.direct.people.byName(ownerName, region);
    if (!owner || !(await db.direct.outbox.find(region, subject.pair(owner.id, subscriber.id)))) return;
    const ended = await remote.subscriberSideEnded(null, owner, subscriber);
    if (ended.length === 0) return;
    const deliveries: Delivery[] = ended.map((subscription) => ({ kind: 'subscription', from: 'subscriber', subscription }));
    // The row stays: the sender tells it again in turn, which the owner's region takes as old news.
    const answer = await deps.call(region, '/federation/v1/deliveries', { deliveries });
    if (answer.status !== 200) throw new Error(`region ${region} answered ${answer.status}`);
  }

  /** Asks `region` to take a request to its `username` from this region's person: its answer, or the refusal here. */
  async function ask(auth: AuthContext, username: string, region: string, message: string | null): Promise<{ subscription: TravellingSubscription; pair?: unknown[] }> {
    let answer: { status: number; body: unknown };
    try {
      await tellWaitingEnd(region, username, auth.account);
      answer = await deps.call(region, '/federation/v1/requests', { owner: username, subscriber: auth.account.username, message });
    } catch (error) {
      throw refuse('region_unavailable', { detail: `region ${region} does not answer; try again in a minute`, retryAfterSeconds: 60, cause: error });
    }
    heard(region);
    if (answer.status === 404) throw refuse('account_not_found', 'nobody has this username');
    if (answer.status >= 400) {
      const problem = answer.body as { code?: string; detail?: string };
      if (problem.code === 'cannot_subscribe_to_self' || problem.code === 'subscription_request_limit' || problem.code === 'contact_limit' || problem.code === 'validation_failed') {
        throw refuse(problem.code, problem.detail ?? 'refused');
      }
      throw refuse('region_unavailable', { detail: `region ${region} could not take the request; try again in a minute`, retryAfterSeconds: 60 });
    }
    // Checked as any word from another region is (deliveries.ts): an answer of no shape stores nothing.
    const answered = answer.body as { subscription?: unknown; pair?: unknown };
    const asked = { kind: 'subscription', from: 'owner', subscription: answered?.subscription };
    if (!isDelivery(asked) || asked.kind !== 'subscription' || (answered.pair !== undefined && !Array.isArray(answered.pair))) {
      throw refuse('region_unavailable', { detail: `region ${region} answered in a way this one cannot read; try again in a minute`, retryAfterSeconds: 60 });
    }
    return { subscription: asked.subscription, pair: answered.pair as unknown[] | undefined };
  }

  return {
    /**
     * POST /contacts {username: "alice@eu"} (PRODUCT §10): asks alice's region, which takes the
     * request as one of its own (the same refusals, silent ones included), and keeps the contact
     * it answers with under the same id. Undefined for a name of this region.
     */
    async follow(auth: AuthContext, typed: string, message: string | null): Promise<string | undefined> {
      const name = splitName(typed);
      if (name.region === undefined || name.region === here) return undefined;
      if (!peers.includes(name.region)) throw refuse('unknown_region', `there is no region ${name.region}`);
      // Its region's canonical form (the same rules in every region): `Alice@eu` is alice's stand-in.
      const username = deps.canonicalOf(name.username) ?? name.username;
      // Before the request's own transaction (a keyed request's unit, decision 341): the other
      // region's answer; the unit then holds only the contact's writes.
      const answered = await outsideAnyUnit(() => ask(auth, username, name.region!, message));
      const state = answered.subscription;
      await db.transaction(async (_, tx) => {
        // Asked again while one is live (the owner's region answers with it): as at home.
        if (await remote.holds(tx, state.id)) throw refuse('already_subscribed', { detail: 'you are subscribed already, or your request is waiting', extensions: { contact_id: state.id } });
        // The pair's earlier subscriptions first, as the owner's region holds them now: one this
        // region still holds live (its revocation on its way) would stand in the new one's way.
        for (const earlier of answered.pair ?? []) {
          const delivery = { kind: 'subscription', from: 'owner', subscription: earlier };
          if (isDelivery(delivery) && delivery.kind === 'subscription' && delivery.subscription.id !== state.id) await applyIn(tx, name.region!, delivery);
        }
        await applyIn(tx, name.region!, { kind: 'subscription', from: 'owner', subscription: state }, true);
      });
      return state.id;
    },

    /**
     * The owner's side of POST /federation/v1/requests: a request from `region`'s person, taken
     * as one of this region's; answered with it and with the pair's other subscriptions as the
     * subscriber's region may see them (as a pair's delivery tells them), so an end not yet
     * delivered there is known before the new request is stored beside it.
     */
    async requested(region: string, body: { owner: string; subscriber: string; message: string | null }): Promise<{ subscription: TravellingSubscription; pair: TravellingSubscription[] }> {
      return db.transaction(async (_, tx) => {
        applying.add(tx);
        const owner = await local(tx, body.owner);
        // A deleted, locked or purged account is nobody to subscribe to (PRODUCT §4).
        if (!owner || owner.deleted_at !== null || owner.locked_at !== null || owner.purged_at !== null) throw refuse('account_not_found', 'nobody has this username');
        const subscriber = await standIn(tx, body.subscriber, region, undefined);
        const subscription = await remote.requestFromRegion(tx, subscriber, owner, body.message, region);
        const pair = (await remote.ownerSideStates(tx, owner, subscriber)).filter((other) => other.id !== subscription.id);
        return { subscription, pair };
      });
    },

  };
}
