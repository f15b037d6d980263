import { refuse } from '../errors.js';
import type { Counters } from './counters.js';

/**
 * Counts attempts of a sensitive action (recovery, join codes, TOTP guesses, failed
 * authentications) per key in a fixed window, on the same counters as the rate limits, so several
 * nodes share them through Redis.
 */
export interface AttemptLimiter {
  /**
   * Counts one attempt; `allowed` is false past the limit, `remaining` how many more the window
   * allows (0 once this one reached the limit), `resetAt` when the window ends (ms since the
   * epoch), `retryAfterSeconds` the seconds until then.
   */
  hit(key: string, limit: number, windowMs: number): Promise<AttemptHit>;
  /** Counts one attempt and refuses past the limit: 429 too_many_attempts, with Retry-After. */
  enforce(key: string, limit: number, windowMs: number, detail: string): Promise<void>;
}

export interface AttemptHit {
  allowed: boolean;
  remaining: number;
  resetAt: number;
  retryAfterSeconds: number;
}

/** Whole seconds from `at` until `resetAt`, at least 1: what Retry-After says. */
export function secondsUntil(resetAt: number, at: number): number {
  return Math.max(1, Math.ceil((resetAt - at) / 1000));
}

export function createAttemptLimiter(counters: Counters, now: () => number): AttemptLimiter {
  async function hit(key: string, limit: number, windowMs: number): Promise<AttemptHit> {
    const at = now();
    const start = at - (at % windowMs);
    const window = await counters.hit(`attempt:${key}`, start, start + windowMs, at);
    return {
      allowed: window.count <= limit,
      remaining: Math.max(0, limit - window.count),
      resetAt: window.resetAt,
      retryAfterSeconds: secondsUntil(window.resetAt, at),
    };
  }
  return {
    hit,
    async enforce(key, limit, windowMs, detail) {
      const attempt = await hit(key, limit, windowMs);
      if (!attempt.allowed) throw refuse('too_many_attempts', { detail, retryAfterSeconds: attempt.retryAfterSeconds });
    },
  };
}
