import type { FollowerIndex } from './follower-index.js';
import type { Group, StreamRegistry } from './stream-registry.js';

/**
 * Turning "account X has something new" and "a card of owner O changed" into catch-ups of the
 * accounts concerned on this node. A card edit wakes the owner's followers here (through the
 * follower index) for the card-change log only; an account's own wake-up marks its own log
 * unread too.
 *
 * Wake-ups arrive right after a commit, before the committing request has answered: the reads
 * they cause start on the next turn of the event loop, so an edit's answer never waits behind
 * its followers' deliveries (on SQLite the reads would otherwise run first, synchronously).
 */
export interface WakeUpParts {
  registry: StreamRegistry;
  followers: FollowerIndex;
  /** Starts (or repeats) the account's catch-up. */
  pump(accountId: string, group: Group): Promise<void>;
}

export function createWakeUps({ registry, followers, pump }: WakeUpParts) {
  /** Accounts to wake on the next turn, and whether their own log may hold something new. */
  const waking = new Map<string, boolean>();

  /** The account has something new: in its own log (`own`, the default), or only a card edit. */
  function wake(accountId: string, own = true): void {
    if (waking.size === 0) setImmediate(wakeWaiting);
    waking.set(accountId, own || waking.get(accountId) === true);
  }

  function wakeWaiting(): void {
    const accounts = [...waking];
    waking.clear();
    for (const [accountId, own] of accounts) {
      const group = registry.groups.get(accountId);
      if (!group || group.streams.size === 0) continue;
      if (own) group.ownDirty = true;
      void pump(accountId, group);
    }
  }

  return {
    wake,

    /** A card of this owner changed: every account here that follows them reads its feed. */
    wakeFollowers(ownerId: string): void {
      for (const accountId of followers.followersOf(ownerId)) wake(accountId, false);
    },

    /** Every account, e.g. after the cross-node listener reconnected and may have missed some. */
    wakeAll(): void {
      for (const accountId of registry.groups.keys()) wake(accountId);
    },
  };
}
