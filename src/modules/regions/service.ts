import type { AuthContext } from '../../platform/caller.js';
import type { Clock } from '../../platform/clock.js';
import type { RegionsConfig } from '../../platform/config.js';
import { refuse } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { newAccount } from '../../platform/store/accounts.js';
import type { AccountRecord } from '../../platform/store/accounts.js';
import { outsideAnyUnit } from '../../platform/store/recorded-unit.js';
import type { RepositoryOf, Tx } from '../../platform/store/store.js';
import type { RemoteContacts, TravellingSubscription } from '../contacts/remote.js';
import type { SubscriptionService } from '../contacts/subscriptions.js';
import type { ProfileService } from '../profiles/service.js';
import { splitName } from '../../platform/person-name.js';
import { isDelivery, parseSubject, subject } from './deliveries.js';
import type { Delivery } from './deliveries.js';
import type { nonceQueries, OutboxRow, outboxQueries, standInQueries } from './queries.js';

/** How long a peer may be unheard before the copies of its cards are shown as not current. */
export const SILENCE_BOUND_MS = 10 * 60_000;

export type RegionRepo = RepositoryOf<{ outbox: typeof outboxQueries; nonces: typeof nonceQueries; people: typeof standInQueries }>;

/** Sends one signed request to a peer region; the sender (sender.ts) is the only one that does. */
export type PeerCall = (region: string, path: string, body: unknown) => Promise<{ status: number; body: unknown }>;

export interface RegionDeps {
  db: RegionRepo;
  clock: Clock;
  regions: RegionsConfig;
  /** This region's canonical form of a typed username (the usernames service); undefined when it is none. */
  canonicalOf(username: string): string | undefined;
  remote: RemoteContacts;
  subscriptions: Pick<SubscriptionService, 'ownerAvailabilityChanged'>;
  cards: Pick<ProfileService, 'cardForDelivery' | 'storeCopy'>;
  call: PeerCall;
  /** After a commit that wrote to a region's outbox: send soon. */
  kick(region: string): void;
}

/**
 * The regions of one operator as a closed federation (PRODUCT §10, decision 352): following
 * someone of another region, what this region tells the others (an outbox written in the
 * transaction of each change), and what it does with what they tell it.
 */
export function createRegionService(deps: RegionDeps) {
  const { db, clock, regions, remote } = deps;
  const here = regions.self.id;
  const peers = regions.peers.map((peer) => peer.id);
  /** When each peer was last heard from, as this node last read or saw it (region_peers). */
  const heardAt = new Map<string, number>();
  /** Transactions applying another region's word: what they change is not told back. */
  const applying = new WeakSet<Tx>();

  async function enqueue(tx: Tx, region: string, what: string): Promise<void> {
    await db.in(tx).outbox.enqueue(region, what, clock.now());
    tx.afterCommit(async () => deps.kick(region));
  }

  /** Whose is a person of another region named here: their stand-in, made on first mention. */
  async function standIn(tx: Tx, username: string, region: string, displayName: string | null | undefined): Promise<AccountRecord> {
    const q = db.in(tx).people;
    const known = await q.byName(username, region);
    if (known) {
      if (displayName !== undefined && known.display_name !== displayName) await q.rename(known.id, displayName);
      return known;
    }
    const canonical = `${username}@${region}`;
    const account = newAccount({
      id: newId('acc'),
      username,
      username_canonical: canonical,
      // Never equal to a name of this region's: the look-alike guard compares within one region (decision 352).
      username_skeleton: canonical,
      username_skeleton_upper: null,
      user_handle: newId('acc'),
      display_name: displayName ?? null,
      region,
      // The owner region's account version once it says one (an account delivery); none yet.
      version: 0,
      created_at: clock.now(),
    });
    await q.insert(account);
    // Two follows of one person at once: both insert, one row stays, and both use it.
    return (await q.byName(username, region))!;
  }

  /** A person of this region by name (the subject of another region's word): never a stand-in. */
  async function local(tx: Tx, username: string): Promise<AccountRecord | undefined> {
    const canonical = deps.canonicalOf(username);
    if (!canonical) return undefined;
    return db.in(tx).people.local(canonical, here);
  }

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
      const states = await remote.ownerSideStatesFor(tx, owner, region, async (id) => (await people.byId(id))?.username);
      return [account, ...states.map((subscription): Delivery => ({ kind: 'subscription', from: 'owner', subscription }))];
    }
    return [{ kind: 'account', username: what.username, display_name: null, deleted: true, locked: false, gone: true, version: Number.MAX_SAFE_INTEGER }];
  }

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
    heardAt.set(region, clock.now());
    if (answer.status === 404) throw refuse('account_not_found', 'nobody has this username');
    if (answer.status >= 400) {
      const problem = answer.body as { code?: string; detail?: string };
      if (problem.code === 'cannot_subscribe_to_self' || problem.code === 'subscription_request_limit' || problem.code === 'contact_limit' || problem.code === 'validation_failed') {
        throw refuse(problem.code, problem.detail ?? 'refused');
      }
      throw refuse('region_unavailable', { detail: `region ${region} could not take the request; try again in a minute`, retryAfterSeconds: 60 });
    }
    return answer.body as { subscription: TravellingSubscription; pair?: unknown[] };
  }

  return {
    deliveriesOf,
    apply,

    /** A peer was heard from (a signed request it sent, or an answer to ours): shared with every node. */
    async heard(region: string): Promise<void> {
      const now = clock.now();
      heardAt.set(region, Math.max(now, heardAt.get(region) ?? 0));
      await db.direct.nonces.heard(region, now);
    },

    /** This node's view of when peers were last heard from, read again (the sender's sweep). */
    async readHeard(): Promise<void> {
      for (const row of await db.direct.nonces.lastHeard()) heardAt.set(row.region, Math.max(row.heard_at, heardAt.get(row.region) ?? 0));
    },

    /**
     * Decision 352: a peer unheard for longer than the bound (it sends at least a heartbeat a
     * minute) is away, and the copies of its people's cards here may not be current: when it
     * was last heard from. Undefined for this region, an unknown one, or one heard of lately.
     */
    silentSince(region: string): number | undefined {
      if (region === here) return undefined;
      const last = heardAt.get(region);
      return last !== undefined && clock.now() - last > SILENCE_BOUND_MS ? last : undefined;
    },

    /**
     * POST /contacts {username: "alice@eu"} (PRODUCT §10): asks alice's region, which takes the
     * request as one of its own (the same refusals, silent ones included), and keeps the contact
     * it answers with under the same id. Undefined for a name of this region.
     */
    async follow(auth: AuthContext, typed: string, message: string | null): Promise<string | undefined> {
      const name = splitName(typed);
      if (name.region === undefined || name.region === here) return undefined;
      if (!peers.includes(name.region)) throw refuse('unknown_region', `there is no region ${name.region}`);
      // Before the request's own transaction (a keyed request's unit, decision 341): the check
      // and the other region's answer; the unit then holds only the contact's writes.
      // Its region's canonical form (the same rules in every region): `Alice@eu` is alice's stand-in.
      const username = deps.canonicalOf(name.username) ?? name.username;
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

    /** Hook (subscriptions' onSeenChanged): a subscription one side of which is elsewhere changed for its subscriber. */
    async seenChanged(tx: Tx, pair: { ownerId: string; subscriberId: string }): Promise<void> {
      if (applying.has(tx) || peers.length === 0) return;
      const people = db.in(tx).people;
      const [owner, subscriber] = [await people.byId(pair.ownerId), await people.byId(pair.subscriberId)];
      if (!owner || !subscriber) return;
      // An unsubscription here from someone elsewhere: a copy of their card nobody here receives any more goes now.
      if (owner.region !== here) await remote.keepReceivedCopies(tx, owner.id);
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

export type RegionService = ReturnType<typeof createRegionService>;
