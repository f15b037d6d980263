/**
 * Remembers the nonces of accepted region signatures until they expire, so a captured request
 * cannot be sent again inside its validity window (RFC 9421 §7.2.2, replay; the `nonce`
 * parameter, §2.3). The deployed store is a database table shared by every node; the one here
 * is in memory, for unit tests and a single process.
 */
export interface NonceStore {
  /**
   * Records `nonce` for `region` until `expiresAt` (ms since the epoch). True when it was not
   * seen before (the request may proceed), false when it was: a replay.
   */
  firstUse(region: string, nonce: string, expiresAt: number): Promise<boolean>;
}

/** A NonceStore in a Map, pruned of expired entries as it is used; `now` is injected for tests. */
export function createMemoryNonceStore(now: () => number = Date.now): NonceStore & { size(): number } {
  const seen = new Map<string, number>();
  return {
    async firstUse(region, nonce, expiresAt) {
      const at = now();
      for (const [key, until] of seen) if (until <= at) seen.delete(key);
      // Region and nonce joined by a character neither contains (region ids are letters).
      const key = `${region} ${nonce}`;
      if (seen.has(key)) return false;
      seen.set(key, expiresAt);
      return true;
    },
    size: () => seen.size,
  };
}
