import { nameInRegion } from '../../platform/person-name.js';
import type { Clock } from '../../platform/clock.js';
import type { RegionsConfig } from '../../platform/config.js';
import { newId } from '../../platform/ids.js';
import { newAccount } from '../../platform/store/accounts.js';
import type { AccountRecord } from '../../platform/store/accounts.js';
import type { RepositoryOf, Tx } from '../../platform/store/store.js';
import type { RemoteContacts } from '../contacts/remote.js';
import type { SubscriptionService } from '../contacts/subscriptions.js';
import type { ProfileService } from '../profiles/service.js';
import type { nonceQueries, outboxQueries, standInQueries } from './queries.js';

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
 * What every part of the regions service shares: its dependencies, this region and its peers,
 * the transactions that apply another region's word (what they change is not told back), the
 * outbox's write, and the people a region's word names.
 */
export function createRegionContext(deps: RegionDeps) {
  const { db, clock, regions } = deps;
  const here = regions.self.id;
  const peers = regions.peers.map((peer) => peer.id);
  /** Transactions applying another region's word: what they change is not told back. */
  const applying = new WeakSet<Tx>();

  /** Something `region` must be told, written in `tx`; the sender is woken once it commits. */
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
    const canonical = nameInRegion(username, region);
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

  return { deps, db, clock, remote: deps.remote, here, peers, applying, enqueue, standIn, local };
}

export type RegionContext = ReturnType<typeof createRegionContext>;
