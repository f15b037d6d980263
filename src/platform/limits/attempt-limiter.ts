import { refuse } from '../errors.js';
import type { Counters } from './counters.js';

/**
 * Counts attempts of a sensitive action (recovery, join codes, TOTP guesses) per key in a fixed
 * window, on the same counters as the rate limits, so several nodes share them through Redis.
 */
export interface AttemptLimiter {
  /** Counts one attempt; `allowed` is false past the limit, with seconds until the window ends. */
  hit(key: string, limit: number, windowMs: number): Promise<{ allowed: boolean; retryAfterSeconds: number }>;
  /** Counts one attempt and refuses past the limit: 429 too_many_attempts, with Retry-After. */
  enforce(key: string, limit: number, windowMs: number, detail: string): Promise<void>;
}

export function createAttemptLimiter(counters: Counters, now: () => number): AttemptLimiter {
  async function hit(key: string, limit: number, windowMs: number) {
    const at = now();
    const start = at - (at % windowMs);
    const window = await counters.hit(`attempt:${key}`, start, start + windowMs, at);
    return { allowed: window.count <= limit, retryAfterSeconds: Math.max(1, Math.ceil((window.resetAt - at) / 1000)) };
  }
  return {
    hit,
    async enforce(key, limit, windowMs, detail) {
      const attempt = await hit(key, limit, windowMs);
      if (!attempt.allowed) throw refuse('too_many_attempts', { detail, retryAfterSeconds: attempt.retryAfterSeconds });
    },
  };
}
