import { AppError, refuse } from '../errors.js';
import { secondsUntil } from './attempt-limiter.js';
import type { AttemptHit, AttemptLimiter } from './attempt-limiter.js';

export interface AuthFailureLimits {
  /** Failed authentications per client address in a minute. */
  perClientPerMinute: number;
  /** Failed authentications per DPoP key thumbprint (of a proof whose signature verified) in a minute. */
  perKeyPerMinute: number;
}

const MINUTE = 60_000;
/**
 * Blocks this node remembers at most (memory safety); past it, the oldest insertion goes. A block
 * forgotten early costs that address or key one counter round trip on its next failure, which
 * the shared count answers with 429 and remembers again.
 */
const MAX_BLOCKS = 100_000;

/**
 * Failed authentications on session routes (decision 003): counted only on the failure path, on
 * the attempt limiter's shared counters (memory, or Redis with REDIS_URL), per client address and
 * per DPoP key. Once a counter reaches its limit this node remembers the block until the window
 * ends, so every later request of that address or key is refused before any work: a map lookup,
 * no counter round trip, no token lookup. A request that succeeds never touches the counters. On
 * several nodes, each node learns a block on its next failure for that address or key, which
 * the shared count already puts past the limit: that failure answers 429 too. Expired blocks go
 * in the periodic maintenance (`prune`).
 */
export function createAuthFailures(limiter: AttemptLimiter, now: () => number, limits: AuthFailureLimits) {
  const blocked = new Map<string, number>();

  function block(principal: string, until: number): void {
    // Deleted first, so Map order stays insertion order and the first entry is the oldest.
    if (!blocked.delete(principal) && blocked.size >= MAX_BLOCKS) blocked.delete(blocked.keys().next().value as string);
    blocked.set(principal, until);
  }

  function throttled(retryAfterSeconds: number): AppError {
    return refuse('too_many_failed_authentications', { detail: `too many failed authentications; retry after ${retryAfterSeconds} s`, retryAfterSeconds });
  }

  function refuseBlocked(principal: string): void {
    const until = blocked.get(principal);
    if (until === undefined) return;
    const at = now();
    if (until <= at) blocked.delete(principal);
    else throw throttled(secondsUntil(until, at));
  }

  /** Counts one failure, remembering the block once it reaches the limit; the hit when past it. */
  async function count(principal: string, limit: number): Promise<AttemptHit | undefined> {
    const hit = await limiter.hit(`authfail:${principal}`, limit, MINUTE);
    if (hit.remaining === 0) block(principal, hit.resetAt);
    return hit.allowed ? undefined : hit;
  }

  return {
    /** Before anything else: an address past its limit is refused (429), from memory. */
    refuseBlockedClient(ip: string): void {
      if (blocked.size) refuseBlocked(`client:${ip}`);
    },
    /** Once the proof verified: a key past its limit is refused (429), from memory. */
    refuseBlockedKey(jkt: string): void {
      if (blocked.size) refuseBlocked(`key:${jkt}`);
    },
    /**
     * Counts a failed authentication of this address and, when the proof's signature verified,
     * of its key. Answers the 429 to send instead of the failure when a counter is already past
     * its limit (another node counted the rest).
     */
    async failed(ip: string, jkt?: string): Promise<AppError | undefined> {
      const [byClient, byKey] = await Promise.all([
        count(`client:${ip}`, limits.perClientPerMinute),
        jkt === undefined ? undefined : count(`key:${jkt}`, limits.perKeyPerMinute),
      ]);
      const retryAfter = Math.max(byClient?.retryAfterSeconds ?? 0, byKey?.retryAfterSeconds ?? 0);
      return retryAfter > 0 ? throttled(retryAfter) : undefined;
    },
    /** Forgets the blocks whose window has ended (the periodic maintenance). */
    prune(at: number): void {
      for (const [principal, until] of blocked) if (until <= at) blocked.delete(principal);
    },
  };
}

export type AuthFailures = ReturnType<typeof createAuthFailures>;
