// When and how long to wait before trying a call again: Retry-After on 429/503 (RFC 9110
// §10.2.3, STANDARDS "Rate limits and retries"), jittered backoff after network errors.

import type { VidNetworkError, VidProblemError } from './errors.js';

/** How many retries a call makes and how long it waits (`retry` of the client or of one call). */
export interface RetryPolicy {
  /** Retries after the first attempt (429/503, network errors on idempotent calls). Default 3. */
  maxRetries: number;
  /** A Retry-After longer than this is not waited for: the problem is thrown. Default 60 s. */
  maxDelayMs: number;
  /** First backoff after a network error, doubled each time (with jitter). Default 250 ms. */
  baseDelayMs: number;
}

/**
 * What the client is about to wait for, given to `onRetry` before each retry, so a UI can say
 * "trying again in 40 s".
 */
export interface RetryWait {
  /** Milliseconds until the next attempt (Retry-After when the server sent one). */
  ms: number;
  /** The retry about to be made: 1 for the first. */
  attempt: number;
  /** The most retries this call makes (`maxRetries`). */
  of: number;
}

/**
 * Called before each wait: `problem` is the refusal (429, 503, 409 idempotency_request_in_progress)
 * or the network error that caused it. Return `false` to give up now: the call then throws it.
 */
export type RetryHook = (wait: RetryWait, problem: VidProblemError | VidNetworkError) => void | boolean;

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 3, maxDelayMs: 60_000, baseDelayMs: 250 };

/** Waits `ms` milliseconds, rejecting when `signal` aborts (tests pass one that records the waits). */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Retry-After as delay-seconds or an HTTP-date, in milliseconds; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Exponential backoff with full jitter: somewhere in [base·2^n / 2, base·2^n], capped. */
export function backoffMs(attempt: number, policy: RetryPolicy): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

/** setTimeout as a promise that an AbortSignal cuts short (rejecting with its reason). */
export const defaultSleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
