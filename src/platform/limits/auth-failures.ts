import { AppError, refuse } from '../errors.js';
import type { Counters } from './counters.js';

export interface AuthFailureLimits {
  /** Failed authentications per client address in a minute. */
  perClientPerMinute: number;
  /** Failed authentications per DPoP key thumbprint (of a proof whose signature verified) in a minute. */
  perKeyPerMinute: number;
}

const MINUTE = 60_000;
/** Blocks this node remembers at most; past it, expired ones go first, then the oldest. */
const MAX_BLOCKS = 100_000;

/**
 * Failed authentications on session routes (decision 003): counted only on the failure path, in
 * the shared counters (memory, or Redis with REDIS_URL), per client address and per DPoP key.
 * Once a counter reaches its limit this node remembers the block until the window ends, so
 * every later request of that address or key is refused before any work: a map lookup, no
 * counter round trip, no token lookup. A request that succeeds never touches the counters. On
 * several nodes, each node learns a block on its next failure for that address or key, which
 * the shared count already puts past the limit: that failure answers 429 too.
 */
export function createAuthFailures(counters: Counters, now: () => number, limits: AuthFailureLimits) {
  const blocked = new Map<string, number>();

  function block(principal: string, until: number): void {
    if (blocked.size >= MAX_BLOCKS) {
      const at = now();
      for (const [key, end] of blocked) if (end <= at) blocked.delete(key);
      if (blocked.size >= MAX_BLOCKS) blocked.delete(blocked.keys().next().value as string);
    }
    blocked.set(principal, until);
  }

  function throttled(until: number, at: number): AppError {
    const seconds = Math.max(1, Math.ceil((until - at) / 1000));
    return refuse('too_many_failed_authentications', { detail: `too many failed authentications; retry after ${seconds} s`, retryAfterSeconds: seconds });
  }

  function refuseBlocked(principal: string): void {
    const until = blocked.get(principal);
    if (until === undefined) return;
    const at = now();
    if (until <= at) blocked.delete(principal);
    else throw throttled(until, at);
  }

  /** Counts one failure; the window's end when this one is past the limit. */
  async function count(principal: string, limit: number, at: number): Promise<number | undefined> {
    const start = at - (at % MINUTE);
    const hit = await counters.hit(`authfail:${principal}`, start, start + MINUTE, at);
    if (hit.count >= limit) block(principal, hit.resetAt);
    return hit.count > limit ? hit.resetAt : undefined;
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
      const at = now();
      const [byClient, byKey] = await Promise.all([
        count(`client:${ip}`, limits.perClientPerMinute, at),
        jkt === undefined ? undefined : count(`key:${jkt}`, limits.perKeyPerMinute, at),
      ]);
      const until = Math.max(byClient ?? 0, byKey ?? 0);
      return until > 0 ? throttled(until, at) : undefined;
    },
  };
}

export type AuthFailures = ReturnType<typeof createAuthFailures>;
