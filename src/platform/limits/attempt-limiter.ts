import type { Counters } from './counters.js';

/**
 * Counts attempts of a sensitive action (recovery, join codes, TOTP guesses) per key in a fixed
 * window, on the same counters as the rate limits, so several nodes share them through Redis.
 */
export interface AttemptLimiter {
  /** Counts one attempt; `allowed` is false past the limit, with seconds until the window ends. */
  hit(key: string, limit: number, windowMs: number): Promise<{ allowed: boolean; retryAfterSeconds: number }>;
}

export function createAttemptLimiter(counters: Counters, now: () => number): AttemptLimiter {
  return {
    async hit(key, limit, windowMs) {
      const at = now();
      const start = at - (at % windowMs);
      const window = await counters.hit(`attempt:${key}`, start, start + windowMs, at);
      return { allowed: window.count <= limit, retryAfterSeconds: Math.max(1, Math.ceil((window.resetAt - at) / 1000)) };
    },
  };
}
