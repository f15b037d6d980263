import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { loadRedis } from '../optional-deps.js';
import type { Store } from '../store/store.js';
import { createAttemptLimiter } from './attempt-limiter.js';
import type { AttemptLimiter } from './attempt-limiter.js';
import { memoryCounters, redisCounters } from './counters.js';
import type { Counters } from './counters.js';
import { memoryReplayCache, redisReplayCache, storeReplayCache } from './replay-cache.js';
import type { ReplayCache } from './replay-cache.js';

export interface SharedState {
  redis?: Redis;
  counters: Counters;
  replayCache: ReplayCache;
  limiter: AttemptLimiter;
}

/**
 * What several nodes must agree on besides the database: rate-limit and attempt counters and
 * the DPoP replay cache, in Redis when REDIS_URL is set, else in memory or the store
 * (docs/decisions/004-dpop-replay-cache.md).
 */
export function createSharedState(config: Pick<Config, 'redisUrl' | 'dpop'>, store: Store, clock: Clock): SharedState {
  let redis: Redis | undefined;
  if (config.redisUrl) {
    const RedisClient = loadRedis();
    redis = new RedisClient(config.redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true });
  }
  const counters: Counters = redis ? redisCounters(redis) : memoryCounters();
  const replayCache: ReplayCache =
    config.dpop.replayCache === 'redis' && redis
      ? redisReplayCache(redis, clock)
      : config.dpop.replayCache === 'memory'
        ? memoryReplayCache(clock)
        : storeReplayCache((hash, until) => store.replay.remember(hash, until));
  return { redis, counters, replayCache, limiter: createAttemptLimiter(counters, clock.now) };
}
