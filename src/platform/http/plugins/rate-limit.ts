import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { refuse } from '../../errors.js';
import type { RateLimitClass } from '../fastify-types.js';
import type { Counters } from '../../limits/counters.js';
import type { Metrics } from '../../metrics/metrics.js';

export interface RateLimitOptions {
  counters: Counters;
  limits: Record<Exclude<RateLimitClass, 'none'>, number>;
  quotaPerMonth: number;
  now: () => number;
  /** 429s by policy. */
  metrics: Metrics;
}

const MINUTE = 60_000;

function monthWindow(now: number): [number, number] {
  const d = new Date(now);
  return [Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)];
}

/**
 * Per-principal limits by route class (PRODUCT §0), with the spec's RateLimit-Limit/Remaining/Reset
 * and the draft-ietf-httpapi-ratelimit-headers-10 pair (RateLimit-Policy, RateLimit); 429 sends
 * Retry-After (RFC 9110 §10.2.3). Unauthenticated routes count per client address before any
 * work is done; authenticated ones per account, after authentication, together with the monthly
 * request quota (Quota-* headers).
 */
export const rateLimitPlugin = fp(async (app: FastifyInstance, opts: RateLimitOptions) => {
  // The current month's window, recomputed only when the clock leaves it (hot path: every request).
  let month: [number, number] = [0, 0];
  const currentMonth = (now: number): [number, number] => {
    if (now < month[0] || now >= month[1]) month = monthWindow(now);
    return month;
  };

  async function count(reply: FastifyReply, policy: Exclude<RateLimitClass, 'none'>, key: string, limit: number): Promise<void> {
    const now = opts.now();
    const windowStart = now - (now % MINUTE);
    const hit = await opts.counters.hit(`${policy}:${key}`, windowStart, windowStart + MINUTE, now);
    const remaining = Math.max(0, limit - hit.count);
    const reset = Math.max(1, Math.ceil((hit.resetAt - now) / 1000));
    reply.header('RateLimit-Limit', limit);
    reply.header('RateLimit-Remaining', remaining);
    reply.header('RateLimit-Reset', reset);
    reply.header('RateLimit-Policy', `"${policy}";q=${limit};w=60`);
    reply.header('RateLimit', `"${policy}";r=${remaining};t=${reset}`);
    if (hit.count > limit) {
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

  function classOf(request: FastifyRequest): RateLimitClass {
    const configured = request.routeOptions.config.rateLimit;
    if (configured) return configured;
    return request.routeOptions.config.auth === 'session' ? 'user' : 'public';
  }

  // Callback hooks: a request of another class passes without a promise being made.
  app.addHook('onRequest', (request, reply, done) => {
    const cls = classOf(request);
    if (cls !== 'auth' && cls !== 'public') return done();
    count(reply, cls, request.ip, opts.limits[cls]).then(() => done(), done);
  });

  // Registered after authentication, so the account is known.
  app.addHook('preHandler', (request, reply, done) => {
    if (classOf(request) !== 'user' || !request.auth) return done();
    const accountId = request.auth.account.id;
    count(reply, 'user', accountId, opts.limits.user)
      .then(() => countQuota(reply, accountId))
      .then(() => done(), done);
  });
}, { name: 'rate-limit' });
