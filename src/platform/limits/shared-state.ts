import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { loadRedis } from '../optional-deps.js';
import type { Store } from '../store/store.js';
import { createAttemptLimiter } from './attempt-limiter.js';
import type { AttemptLimiter } from './attempt-limiter.js';
import { createBreaker } from './breaker.js';
import type { Breaker } from './breaker.js';
import { memoryCounters, redisCounters } from './counters.js';
import type { Counters } from './counters.js';
import { memoryReplayCache, redisReplayCache, storeReplayCache } from './replay-cache.js';
import type { ReplayCache } from './replay-cache.js';

export interface SharedState {
  redis?: Redis;
  /** Whether Redis is being bypassed now (the breaker is open); always false without Redis. */
  redisBypassed(): boolean;
  counters: Counters;
  replayCache: ReplayCache;
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
    return { redisBypassed: () => false, counters, replayCache, limiter: createAttemptLimiter(counters, clock.now) };
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
  const counters = resilientCounters(breaker, redisCounters(redis), memoryCounters());
  const replayWindowMs = (config.dpop.iatWindowSeconds + config.dpop.clockSkewSeconds) * 1000;
  const replayCache: ReplayCache =
    config.dpop.replayCache === 'redis'
      ? resilientReplayCache(breaker, redisReplayCache(redis, clock), fromStore, replayWindowMs)
      : config.dpop.replayCache === 'memory'
        ? memoryReplayCache(clock)
        : fromStore;
  return { redis, redisBypassed: () => breaker.open, counters, replayCache, limiter: createAttemptLimiter(counters, clock.now) };
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
