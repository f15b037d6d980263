/**
 * The public cards this node has read lately (PRODUCT §6), so that `GET /public/{username}` skips
 * the database for a card that has not changed (decision 240). It holds only what the public
 * card's rule (`publicCardAudience`, statements.ts) answered; it never decides anything itself.
 *
 * Forgetting is what keeps it private. Everything that can change a public card, or whether it
 * is shown (a field, an exposure, the profile made public or not, the display name, the account
 * deleted, restored, locked or unlocked), writes a signal to the owner in its transaction, and
 * every node hears of every signal after its commit (in process, and through PostgreSQL's
 * NOTIFY on the others). On any signal of an owner its card is forgotten; when a node may have
 * missed some (its listener reconnected, another process wrote the SQLite file) it forgets all.
 *
 * A read that started before a change committed could store what it read after the change
 * was forgotten: each forgetting is numbered, and a read stores its result only if its owner
 * (or everyone) was not forgotten while it ran. Per owner, so a busy service whose other
 * accounts change all the time still fills the cache. Entries also expire after a few seconds,
 * a bound on any wake-up lost on the way.
 */
export interface CachedPublicCard {
  accountId: string;
  json: string;
  etag: string;
}

export interface PublicCardCacheOptions {
  now(): number;
  /** Usernames held at most (least recently read dropped first). */
  capacity?: number;
  /** How long an entry lives, even if no wake-up says it changed. */
  ttlMs?: number;
}

export function createPublicCardCache(options: PublicCardCacheOptions) {
  const capacity = options.capacity ?? 10_000;
  const ttlMs = options.ttlMs ?? 5_000;
  const entries = new Map<string, { card: CachedPublicCard; expires: number }>();
  /** Owner → the canonical usernames whose entries hold their card. */
  const byOwner = new Map<string, string>();
  let generation = 0;
  /** Owner → the number of their latest forgetting; past `capacity` owners, one forgetting of all. */
  const forgotten = new Map<string, number>();
  let allForgottenAt = 0;

  function drop(canonical: string): void {
    const entry = entries.get(canonical);
    if (!entry) return;
    entries.delete(canonical);
    if (byOwner.get(entry.card.accountId) === canonical) byOwner.delete(entry.card.accountId);
  }

  return {
    /** The card held for this username, if any and still fresh. */
    get(canonical: string): CachedPublicCard | undefined {
      const entry = entries.get(canonical);
      if (!entry) return undefined;
      if (options.now() >= entry.expires) {
        drop(canonical);
        return undefined;
      }
      return entry.card;
    },

    /** Where a read starts: pass it to `put` with what the read found. */
    mark: (): number => generation,

    /** Keeps what a read found, unless its owner (or everyone) was forgotten since it started. */
    put(canonical: string, card: CachedPublicCard, markedAt: number): void {
      if (allForgottenAt > markedAt || (forgotten.get(card.accountId) ?? 0) > markedAt) return;
      drop(canonical);
      const previous = byOwner.get(card.accountId);
      if (previous !== undefined) drop(previous);
      entries.set(canonical, { card, expires: options.now() + ttlMs });
      byOwner.set(card.accountId, canonical);
      if (entries.size > capacity) drop(entries.keys().next().value!);
    },

    /** Something of this account changed (a signal of theirs committed). */
    forget(accountId: string): void {
      forgotten.delete(accountId);
      forgotten.set(accountId, ++generation);
      // The oldest numbers only matter to reads still running: past the bound, count them as one forgetting of all.
      if (forgotten.size > capacity) {
        forgotten.clear();
        allForgottenAt = generation;
      }
      const canonical = byOwner.get(accountId);
      if (canonical !== undefined) drop(canonical);
    },

    /** Wake-ups may have been missed: nothing held can be trusted. */
    forgetAll(): void {
      allForgottenAt = ++generation;
      forgotten.clear();
      entries.clear();
      byOwner.clear();
    },

    size: () => entries.size,
  };
}

export type PublicCardCache = ReturnType<typeof createPublicCardCache>;
