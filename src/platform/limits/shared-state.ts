import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { loadRedis } from '../optional-deps.js';
import type { Store } from '../store/store.js';
import { countedAdmission, proofThenWindows, stepwiseAdmission } from './admission.js';
import type { Admission } from './admission.js';
import { createAttemptLimiter } from './attempt-limiter.js';
import type { AttemptLimiter } from './attempt-limiter.js';
import { createBreaker } from './breaker.js';
import type { Breaker } from './breaker.js';
import { memoryCounters, redisCounters } from './counters.js';
import type { Counters } from './counters.js';
import { memoryReplayCache, redisReplayCache, storeReplayCache } from './replay-cache.js';
import type { ReplayCache } from './replay-cache.js';
import { redisAdmission } from './redis-admission.js';

export interface SharedState {
  redis?: Redis;
  /** Whether Redis is being bypassed now (the breaker is open); always false without Redis. */
  redisBypassed(): boolean;
  counters: Counters;
  replayCache: ReplayCache;
  /** An authenticated request's proof id and counters at once: one Redis round trip (decision 350). */
  admission: Admission;
  limiter: AttemptLimiter;
}

export interface SharedStateLog {
  warn(error: unknown, what: string): void;
  info?(what: string): void;
}

/**
 * What several nodes must agree on besides the database: rate-limit and attempt counters and
 * the DPoP replay cache, in Redis when REDIS_URL is set, else in memory or the store
 * (docs/decisions/004-dpop-replay-cache.md). Redis failing never fails a request: behind a
 * circuit breaker, counters fall back to this node's memory and proof ids to the database
 * (decision 260).
 */
export function createSharedState(config: Pick<Config, 'redisUrl' | 'redis' | 'dpop'>, store: Store, clock: Clock, log?: SharedStateLog): SharedState {
  const fromStore = storeReplayCache((hash, until) => store.replay.remember(hash, until));
  if (!config.redisUrl) {
    const counters = memoryCounters();
    const replayCache = config.dpop.replayCache === 'memory' ? memoryReplayCache(clock) : fromStore;
    const admission = stepwiseAdmission(replayCache, counters);
    return { redisBypassed: () => false, counters, replayCache, admission, limiter: createAttemptLimiter(counters, clock.now) };
  }
  const RedisClient = loadRedis();
  const redis = new RedisClient(config.redisUrl, {
    // A command Redis does not answer in time fails (the breaker then answers from the fallback);
    // while disconnected, commands fail at once instead of queueing behind the reconnection.
    commandTimeout: config.redis.commandTimeoutMs,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  // ioredis reports every failed connection attempt as 'error'; the breaker's log says it once.
  redis.on('error', () => {});
  const breaker = createBreaker({
    connected: () => redis.status === 'ready',
    openMs: config.redis.breakerOpenMs,
    onOpen: (error) => log?.warn(error, 'Redis is unavailable: rate limits count in this node, DPoP proof ids go to the database'),
    onClose: () => log?.info?.('Redis answers again: rate limits and DPoP proof ids are shared through it'),
  });
  // One memory for every fallback, so a window's count goes on whichever path counts it.
  const local = memoryCounters();
  const counters = resilientCounters(breaker, redisCounters(redis), local);
  const replayWindowMs = (config.dpop.iatWindowSeconds + config.dpop.clockSkewSeconds) * 1000;
  const replayCache: ReplayCache =
    config.dpop.replayCache === 'redis'
      ? resilientReplayCache(breaker, redisReplayCache(redis, clock), fromStore, replayWindowMs)
      : config.dpop.replayCache === 'memory'
        ? memoryReplayCache(clock)
        : fromStore;
  const inRedis = redisAdmission(redis);
  const admission =
    config.dpop.replayCache === 'redis'
      ? resilientAdmission(breaker, inRedis, stepwiseAdmission(fromStore, local), stepwiseAdmission(replayCache, counters), replayWindowMs)
      : // Proof ids elsewhere: checked there first, then the counters in one script.
        proofThenWindows(replayCache, resilientAdmission(breaker, inRedis, countedAdmission(local), countedAdmission(counters), replayWindowMs));
  return { redis, redisBypassed: () => breaker.open, counters, replayCache, admission, limiter: createAttemptLimiter(counters, clock.now) };
}

/**
 * Counters in Redis, or in this node's memory while Redis fails: each node then allows the full
 * limit on its own (N nodes, N times the limit), and counts restart from zero in each window.
 */
export function resilientCounters(breaker: Breaker, shared: Counters, local: Counters): Counters {
  return {
    hit: (key, windowStart, windowEnd, now) =>
      breaker.run(
        () => shared.hit(key, windowStart, windowEnd, now),
        () => local.hit(key, windowStart, windowEnd, now),
      ),
    prune: (now) => local.prune?.(now),
  };
}

/**
 * Proof ids in Redis, or in the database's table while Redis fails: never no check (RFC 9449
 * §11.1). A proof accepted meanwhile is in the database, not in Redis, so for one acceptance
 * window after the last fallback every proof is checked in both.
 */
export function resilientReplayCache(breaker: Breaker, shared: ReplayCache, durable: ReplayCache, windowMs: number): ReplayCache {
  return {
    async remember(jti, until) {
      let fellBack = false;
      const first = await breaker.run(
        () => shared.remember(jti, until),
        () => {
          fellBack = true;
          return durable.remember(jti, until);
        },
      );
      if (fellBack || breaker.sinceFallbackMs() > windowMs) return first;
      const inDatabase = await durable.remember(jti, until);
      return first && inDatabase;
    },
  };
}

/**
 * An admission in one Redis script, or, while Redis fails, the fallbacks above: proof ids in the
 * database and counters in this node's memory. For one acceptance window after the last fallback
 * a proof id goes the way `resilientReplayCache` takes it (Redis, then the database too) before
 * the counters, one call at a time: a proof accepted during the outage is then refused before
 * anything is counted, as it was before the calls were joined.
 */
export function resilientAdmission(breaker: Breaker, shared: Admission, local: Admission, stepwise: Admission, windowMs: number): Admission {
  return {
    admit(request) {
      if (request.proof && breaker.sinceFallbackMs() <= windowMs) return stepwise.admit(request);
      return breaker.run(
        () => shared.admit(request),
        () => local.admit(request),
      );
    },
  };
}
