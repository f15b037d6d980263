import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { refuse } from '../../errors.js';
import { refusalOf } from './problem.js';
import type { RateLimitClass } from '../fastify-types.js';
import { addressBucket } from '../../limits/address-bucket.js';
import { memoryCounters } from '../../limits/counters.js';
import type { Counters, WindowHit } from '../../limits/counters.js';
import type { Admission, WindowToCount } from '../../limits/admission.js';
import type { Metrics } from '../../metrics/metrics.js';

export interface RateLimitOptions {
  counters: Counters;
  /** A route's own count of an account's request with its quota, at once (`countAccount`). */
  admission: Admission;
  /** Requests a minute per principal, by class. */
  limits: Record<RateLimitClass, number>;
  quotaPerMonth: number;
  now: () => number;
  /** 429s by policy. */
  metrics: Metrics;
}

const MINUTE = 60_000;
/** The refusals that say "not this node, not now" (RFC 9110 §15.6.4): no counter is spent on them. */
const UNAVAILABLE = new Set(['overloaded', 'shutting_down', 'database_unavailable', 'dependency_unavailable']);

function monthWindow(now: number): [number, number] {
  const d = new Date(now);
  return [Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)];
}

/**
 * The spec's RateLimit-Limit/Remaining/Reset (reset as delta seconds) and the
 * draft-ietf-httpapi-ratelimit-headers-10 pair, for one policy.
 */
function setRateLimitHeaders(reply: FastifyReply, policy: string, limit: number, remaining: number, resetSeconds: number, windowSeconds: number): void {
  reply.header('RateLimit-Limit', limit);
  reply.header('RateLimit-Remaining', remaining);
  reply.header('RateLimit-Reset', resetSeconds);
  reply.header('RateLimit-Policy', `"${policy}";q=${limit};w=${windowSeconds}`);
  reply.header('RateLimit', `"${policy}";r=${remaining};t=${resetSeconds}`);
}

/**
 * Per-principal limits by class (PRODUCT §0) and the monthly request quota (Quota-*), counted on
 * the shared counters (Redis with REDIS_URL). 429 sends Retry-After (RFC 9110 §10.2.3). The
 * plugin counts what it can tell before a route runs; an authenticated request's account is
 * counted in its authentication's admission (`accountLimits`, decision 350); a route that learns
 * its principal itself (the address book's passwords) counts through `countAccount`.
 */
export function createRateLimits(opts: RateLimitOptions) {
  // The current month's window, recomputed only when the clock leaves it (hot path: every request).
  let month: [number, number] = [0, 0];
  const currentMonth = (now: number): [number, number] => {
    if (now < month[0] || now >= month[1]) month = monthWindow(now);
    return month;
  };
  // Health probes count in this node's memory: a probe must answer whatever Redis does.
  const probes = memoryCounters();

  function minuteWindow(policy: RateLimitClass, key: string, now: number): WindowToCount {
    const windowStart = now - (now % MINUTE);
    return { key: `${policy}:${key}`, windowStart, windowEnd: windowStart + MINUTE, limit: opts.limits[policy] };
  }

  function quotaWindow(accountId: string, now: number): WindowToCount {
    const [start, end] = currentMonth(now);
    return { key: `quota:${accountId}`, windowStart: start, windowEnd: end, limit: opts.quotaPerMonth };
  }

  /** Sets the headers of `policy` from its count, and refuses (429) past the limit when `enforce`. */
  function settleMinute(reply: FastifyReply, policy: RateLimitClass, hit: WindowHit, now: number, enforce: boolean): void {
    const limit = opts.limits[policy];
    const remaining = Math.max(0, limit - hit.count);
    const reset = Math.max(1, Math.ceil((hit.resetAt - now) / 1000));
    setRateLimitHeaders(reply, policy, limit, remaining, reset, 60);
    if (enforce && hit.count > limit) {
      opts.metrics.rateLimited(policy);
      throw refuse('rate_limited', { detail: `limit of ${limit} requests a minute reached; retry after ${reset} s`, retryAfterSeconds: reset });
    }
  }

  function settleQuota(reply: FastifyReply, hit: WindowHit, now: number): void {
    const reset = Math.max(1, Math.ceil((hit.resetAt - now) / 1000));
    reply.header('Quota-Limit', opts.quotaPerMonth);
    reply.header('Quota-Remaining', Math.max(0, opts.quotaPerMonth - hit.count));
    reply.header('Quota-Reset', reset);
    if (hit.count > opts.quotaPerMonth) {
      opts.metrics.rateLimited('quota');
      throw refuse('quota_exceeded', { detail: 'the monthly request quota of this account is used up', retryAfterSeconds: reset });
    }
  }

  /** Counts one request of `key` under `policy`, sets the headers, and refuses (429) past the limit when `enforce`. */
  async function count(reply: FastifyReply, policy: RateLimitClass, key: string, enforce = true): Promise<void> {
    const now = opts.now();
    const window = minuteWindow(policy, key, now);
    const counters = policy === 'probe' ? probes : opts.counters;
    const hit = await counters.hit(window.key, window.windowStart, window.windowEnd, now);
    settleMinute(reply, policy, hit, now, enforce);
  }

  /**
   * The windows an account's request of `policy` counts in, in the order they refuse: the
   * minute limit of `key`, then the account's monthly quota (not counted once the first refused).
   */
  function accountWindows(policy: RateLimitClass, key: string, accountId: string, now: number): WindowToCount[] {
    return [minuteWindow(policy, key, now), quotaWindow(accountId, now)];
  }

  /** The headers and the first refusal from what an admission counted in `accountWindows`. */
  function settleAccount(reply: FastifyReply, policy: RateLimitClass, hits: readonly WindowHit[], now: number): void {
    settleMinute(reply, policy, hits[0]!, now, true);
    if (hits[1]) settleQuota(reply, hits[1], now);
  }

  /** Counts an account's request of `policy` and its quota in one admission (one Redis round trip). */
  async function countAccount(reply: FastifyReply, policy: RateLimitClass, key: string, accountId: string): Promise<void> {
    const now = opts.now();
    const { hits } = await opts.admission.admit({ windows: accountWindows(policy, key, accountId, now), now });
    settleAccount(reply, policy, hits, now);
  }

  /**
   * A node that sheds load, drains or has lost a dependency takes nothing for Retry-After
   * seconds: said as a policy with nothing remaining, and no counter spent on it.
   */
  function unavailable(reply: FastifyReply, retryAfterSeconds: number): void {
    setRateLimitHeaders(reply, 'unavailable', 0, 0, retryAfterSeconds, retryAfterSeconds);
  }

  return { count, countAccount, accountWindows, settleAccount, unavailable };
}

export type RateLimits = ReturnType<typeof createRateLimits>;

/** Where the web app's catch-all hands a path to the not-found answer: an API client's mistake, counted as one. */
const isApiPath = (url: string) => url === '/api' || url.startsWith('/api/') || url.startsWith('/api?') || url.startsWith('/health');

function classOf(request: FastifyRequest): RateLimitClass {
  const configured = request.routeOptions.config?.rateLimit;
  if (configured === 'web' && isApiPath(request.url)) return 'public';
  if (configured) return configured;
  return request.routeOptions.config?.auth === 'session' ? 'user' : 'public';
}

/**
 * What an authenticated request of the user class counts in, handed to the authentication
 * (dpop-auth.ts) so that its admission spends the proof id and counts these at once
 * (decision 350). Another class's request counts nothing there.
 */
export interface AccountLimits {
  windows(request: FastifyRequest, accountId: string, now: number): WindowToCount[];
  /** Sets RateLimit-* and Quota-* from the admission's counts, then refuses as the first window past its limit says. */
  settle(reply: FastifyReply, hits: readonly WindowHit[], now: number): void;
}

export function accountLimits(limits: RateLimits): AccountLimits {
  return {
    windows: (request, accountId, now) => (classOf(request) === 'user' ? limits.accountWindows('user', accountId, accountId, now) : []),
    settle: (reply, hits, now) => {
      if (hits.length > 0) limits.settleAccount(reply, 'user', hits, now);
    },
  };
}

/**
 * Every answer carries RateLimit-* (the spec's Limits): unauthenticated classes (auth, public, the
 * web app, health probes) count per client address before any work; the user class per account,
 * with the quota, in the authentication's admission (`accountLimits`); a route of the `dav` class
 * counts itself once it knows the password. An answer that got no count by then (a failed
 * authentication, a route that does not exist, a refusal before counting) is counted per client
 * address as a public request on its way out, never refused there; a node that is unavailable
 * says so without a counter.
 */
export const rateLimitPlugin = fp(async (app: FastifyInstance, opts: { limits: RateLimits }) => {
  const { count, unavailable } = opts.limits;

  // Callback hooks: a request of another class passes without a promise being made.
  app.addHook('onRequest', (request, reply, done) => {
    const cls = classOf(request);
    if (cls === 'user' || cls === 'dav') return done();
    count(reply, cls, addressBucket(request.ip)).then(() => done(), done);
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    if (reply.hasHeader('ratelimit-limit')) return done(null, payload);
    const refusal = refusalOf(reply);
    if (refusal && UNAVAILABLE.has(refusal.code)) {
      unavailable(reply, refusal.retryAfterSeconds ?? 1);
      return done(null, payload);
    }
    count(reply, 'public', addressBucket(request.ip), false).then(
      () => done(null, payload),
      // A counter that cannot be reached leaves this answer without the headers, never without the answer.
      () => done(null, payload),
    );
  });
}, { name: 'rate-limit' });
