/**
 * Which accounts with streams on this node follow an owner, so that a card edit, published once
 * and naming only its owner, wakes just those accounts (decision 220: an edit is never written
 * per follower). The index only decides whom to wake; what a stream receives is always read from
 * the database, which applies who receives which card at that moment.
 */
export function createFollowerIndex() {
  /** Owner → the accounts with streams on this node that follow them. */
  const followers = new Map<string, Set<string>>();

  function unfollow(owner: string, accountId: string): void {
    const accounts = followers.get(owner);
    accounts?.delete(accountId);
    if (accounts?.size === 0) followers.delete(owner);
  }

  return {
    /** The account now follows `owners` instead of `before`. */
    follow(accountId: string, before: Iterable<string>, owners: Set<string>): void {
      for (const owner of before) if (!owners.has(owner)) unfollow(owner, accountId);
      for (const owner of owners) {
        let accounts = followers.get(owner);
        if (!accounts) followers.set(owner, (accounts = new Set()));
        accounts.add(accountId);
      }
    },

    /** The account has no stream left here: it follows none of `owners` any more. */
    unfollowAll(accountId: string, owners: Iterable<string>): void {
      for (const owner of owners) unfollow(owner, accountId);
    },

    followersOf(ownerId: string): Iterable<string> {
      return followers.get(ownerId) ?? [];
    },

    /** How many owners are followed from this node. */
    get size(): number {
      return followers.size;
    },
  };
}

export type FollowerIndex = ReturnType<typeof createFollowerIndex>;
