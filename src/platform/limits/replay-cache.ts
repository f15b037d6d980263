import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import { sha256Base64url } from '../crypto/tokens.js';

/**
 * Remembers DPoP proof ids (RFC 9449 §11.1) until their acceptance window closes.
 * - store: a row per jti in the shared database: every node sees it, survives restarts.
 * - redis: SET NX PX: shared by all nodes, no durable write per request.
 * - memory: one process only; a restart forgets (a captured proof could be replayed within its
 *   window, at most DPOP_IAT_WINDOW_S): only for a single node that accepts that.
 */
export interface ReplayCache {
  /** True when first seen; false for a replay. */
  remember(jti: string, until: number): Promise<boolean>;
  prune?(now: number): void;
}

export function storeReplayCache(remember: (jtiHash: string, until: number) => Promise<boolean>): ReplayCache {
  return { remember: (jti, until) => remember(sha256Base64url(jti), until) };
}

/** A proof id's key in Redis: its hash, never the id itself; the one-trip admission sets the same keys. */
export const proofKey = (jti: string) => `vid:jti:${sha256Base64url(jti)}`;

/** Remembered until the proof's acceptance window closes (§11.1), at least a millisecond. */
export const proofTtl = (until: number, now: number) => Math.max(1, until - now);

export function redisReplayCache(redis: Redis, clock: Clock): ReplayCache {
  return {
    async remember(jti, until) {
      const result = await redis.set(proofKey(jti), '1', 'PX', proofTtl(until, clock.now()), 'NX');
      return result === 'OK';
    },
  };
}

export function memoryReplayCache(clock: Clock): ReplayCache {
  const seen = new Map<string, number>();
  return {
    async remember(jti, until) {
      const known = seen.get(jti);
      if (known !== undefined && known > clock.now()) return false;
      seen.set(jti, until);
      return true;
    },
    prune(now) {
      for (const [jti, until] of seen) if (until <= now) seen.delete(jti);
    },
  };
}
