import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { refuse } from '../../errors.js';
import { refusalOf } from './problem.js';
import type { RateLimitClass } from '../fastify-types.js';
import { addressBucket } from '../../limits/address-bucket.js';
import { memoryCounters } from '../../limits/counters.js';
import type { Counters } from '../../limits/counters.js';
import type { Metrics } from '../../metrics/metrics.js';

export interface RateLimitOptions {
  counters: Counters;
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
 * plugin counts what it can tell before a route runs; a route that learns its principal itself
 * (the address book's passwords) counts through `count` and `countQuota`.
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

  /** Counts one request of `key` under `policy`, sets the headers, and refuses (429) past the limit when `enforce`. */
  async function count(reply: FastifyReply, policy: RateLimitClass, key: string, enforce = true): Promise<void> {
    const limit = opts.limits[policy];
    const now = opts.now();
    const windowStart = now - (now % MINUTE);
    const counters = policy === 'probe' ? probes : opts.counters;
    const hit = await counters.hit(`${policy}:${key}`, windowStart, windowStart + MINUTE, now);
    const remaining = Math.max(0, limit - hit.count);
    const reset = Math.max(1, Math.ceil((hit.resetAt - now) / 1000));
    setRateLimitHeaders(reply, policy, limit, remaining, reset, 60);
    if (enforce && hit.count > limit) {
      opts.metrics.rateLimited(policy);
      throw refuse('rate_limited', { detail: `limit of ${limit} requests a minute reached; retry after ${reset} s`, retryAfterSeconds: reset });
    }
  }

  async function countQuota(reply: FastifyReply, accountId: string): Promise<void> {
    const now = opts.now();
    const [start, end] = currentMonth(now);
    const hit = await opts.counters.hit(`quota:${accountId}`, start, end, now);
    const reset = Math.max(1, Math.ceil((end - now) / 1000));
    reply.header('Quota-Limit', opts.quotaPerMonth);
    reply.header('Quota-Remaining', Math.max(0, opts.quotaPerMonth - hit.count));
    reply.header('Quota-Reset', reset);
    if (hit.count > opts.quotaPerMonth) {
      opts.metrics.rateLimited('quota');
      throw refuse('quota_exceeded', { detail: 'the monthly request quota of this account is used up', retryAfterSeconds: reset });
    }
  }

  /**
   * A node that sheds load, drains or has lost a dependency takes nothing for Retry-After
   * seconds: said as a policy with nothing remaining, and no counter spent on it.
   */
  function unavailable(reply: FastifyReply, retryAfterSeconds: number): void {
    setRateLimitHeaders(reply, 'unavailable', 0, 0, retryAfterSeconds, retryAfterSeconds);
  }

  return { count, countQuota, unavailable };
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
 * Every answer carries RateLimit-* (the spec's Limits): unauthenticated classes (auth, public, the
 * web app, health probes) count per client address before any work; the user class per account
 * after authentication, with the quota; a route of the `dav` class counts itself once it knows
 * the password. An answer that got no count by then (a failed authentication, a route that does
 * not exist, a refusal before counting) is counted per client address as a public request on its
 * way out, never refused there; a node that is unavailable says so without a counter.
 */
export const rateLimitPlugin = fp(async (app: FastifyInstance, opts: { limits: RateLimits }) => {
  const { count, countQuota, unavailable } = opts.limits;

  // Callback hooks: a request of another class passes without a promise being made.
  app.addHook('onRequest', (request, reply, done) => {
    const cls = classOf(request);
    if (cls === 'user' || cls === 'dav') return done();
    count(reply, cls, addressBucket(request.ip)).then(() => done(), done);
  });

  // Registered after authentication, so the account is known.
  app.addHook('preHandler', (request, reply, done) => {
    if (classOf(request) !== 'user' || !request.auth) return done();
    const accountId = request.auth.account.id;
    count(reply, 'user', accountId)
      .then(() => countQuota(reply, accountId))
      .then(() => done(), done);
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
