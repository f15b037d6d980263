import type { Redis } from 'ioredis';

/**
 * Fixed-window counters for rate limits and quotas. In memory on one node; in Redis when
 * several nodes must agree (one INCR plus PEXPIRE in a single round trip).
 */
export interface WindowHit {
  count: number;
  /** When the window closes, ms since the epoch. */
  resetAt: number;
}

export interface Counters {
  hit(key: string, windowStart: number, windowEnd: number, now: number): Promise<WindowHit>;
  prune?(now: number): void;
}

export function memoryCounters(): Counters {
  const windows = new Map<string, WindowHit>();
  return {
    async hit(key, windowStart, windowEnd) {
      const id = `${key}:${windowStart}`;
      const current = windows.get(id);
      if (current) {
        current.count += 1;
        return current;
      }
      const fresh = { count: 1, resetAt: windowEnd };
      windows.set(id, fresh);
      return fresh;
    },
    prune(now) {
      for (const [id, window] of windows) if (window.resetAt <= now) windows.delete(id);
    },
  };
}

/** A window's key in Redis; the one-trip admission (redis-admission.ts) counts the same keys. */
export const windowKey = (key: string, windowStart: number) => `vid:rl:${key}:${windowStart}`;

/** How long Redis keeps a window's counter: to its end, and a second more for clocks apart. */
export const windowTtl = (windowEnd: number, now: number) => Math.max(1, windowEnd - now + 1000);

const INCREMENT = `local c = redis.call('INCR', KEYS[1]) if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end return c`;

type WithIncrement = Redis & { vidIncrementWindow(key: string, ttl: number): Promise<number> };

export function redisCounters(redis: Redis): Counters {
  // EVALSHA, not EVAL: Redis then neither receives nor hashes the script's text on every
  // request (ioredis loads it once and falls back to EVAL if the server lost it).
  if (!('vidIncrementWindow' in redis)) redis.defineCommand('vidIncrementWindow', { numberOfKeys: 1, lua: INCREMENT });
  const client = redis as WithIncrement;
  return {
    async hit(key, windowStart, windowEnd, now) {
      const count = await client.vidIncrementWindow(windowKey(key, windowStart), windowTtl(windowEnd, now));
      return { count, resetAt: windowEnd };
    },
  };
}
