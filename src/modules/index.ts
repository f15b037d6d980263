import type { Redis } from 'ioredis';
import type { Clock } from '../platform/clock.js';
import type { Config } from '../platform/config.js';
import { createDpopVerifier } from '../platform/crypto/dpop.js';
import { createSecretBox } from '../platform/crypto/secret-box.js';
import { loadSecretKey, subkey } from '../platform/crypto/secret-key.js';
import { loadReservedNames } from './usernames/rules.js';
import { createEventService } from './signals/service.js';
import { createFieldCatalog } from './fields/catalog.js';
import { createFieldService } from './fields/service.js';
import { createJoinService } from './join/service.js';
import { createJoinFactors } from './join/factors.js';
import { createMeService } from './me/service.js';
import { createMethodsService } from './methods/passkeys.js';
import { createPasskeyAuthService } from './sign-in/service.js';
import { createRecoveryService } from './recovery/service.js';
import { createSecurityLog } from './security-log/service.js';
import { createSessionService } from './sessions/service.js';
import { createStepUpService } from './step-up/service.js';
import { createTotpService } from './methods/totp.js';
import { createUsernameService } from './usernames/service.js';
import { createStreamHub } from '../platform/signals/hub.js';
import { inProcessNotifier, postgresNotifier } from '../platform/signals/notifier.js';
import type { Notifier } from '../platform/signals/notifier.js';
import { locateIp } from '../platform/geo/locate.js';
import { loadRedis } from '../platform/optional-deps.js';
import { createAttemptLimiter } from '../platform/limits/attempt-limiter.js';
import { memoryCounters, redisCounters } from '../platform/limits/counters.js';
import type { Counters } from '../platform/limits/counters.js';
import { memoryReplayCache, redisReplayCache, storeReplayCache } from '../platform/limits/replay-cache.js';
import type { ReplayCache } from '../platform/limits/replay-cache.js';
import type { Store } from '../platform/store/store.js';

/**
 * Every domain service, built once from its dependencies (ARCHITECTURE: services take store,
 * clock and config, never a Fastify request). The HTTP layer only wires them to routes.
 */
export function createServices(deps: { config: Config; store: Store; clock: Clock; warn: (error: unknown, what: string) => void }) {
  const { config, store, clock } = deps;
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

  const verifier = createDpopVerifier(config.dpop);
  const secretKey = loadSecretKey(config);
  const box = createSecretBox(secretKey);
  const limiter = createAttemptLimiter(counters, clock.now);
  const securityLog = createSecurityLog({ store, clock, locate: locateIp });
  const sessions = createSessionService({ store, clock, config, dpopChallenge: verifier.challenge, securityLog });
  const usernames = createUsernameService({ store, reserved: loadReservedNames(config.reservedUsernamesFile) });
  const totp = createTotpService({ store, clock, config, box, limiter, securityLog });
  const recovery = createRecoveryService({ store, clock, config, box, limiter, totp, sessions, securityLog });
  const passkeys = createPasskeyAuthService({ store, clock, config, sessions, usernames, securityLog, createRecoveryKey: recovery.createKey });
  const stepUp = createStepUpService({ store, clock, config });
  const methods = createMethodsService({ store, clock, config, securityLog });
  const join = createJoinService({ store, clock, config, codeKey: subkey(secretKey, 'join-codes'), limiter, sessions, securityLog, factors: createJoinFactors({ totp }) });
  const me = createMeService({ store, clock });
  const fieldCatalog = createFieldCatalog();
  const fields = createFieldService({ store, clock, catalog: fieldCatalog });
  const events = createEventService({ store, clock, retentionDays: config.events.retentionDays });
  const streams = createStreamHub({
    read: events.read,
    isSessionLive: events.isSessionLive,
    toSignal: events.toSignal,
    now: clock.now,
    limits: {
      perAccount: config.events.maxStreamsPerAccount,
      bufferBytes: config.events.streamBufferBytes,
      stallMs: config.events.stallTimeoutMs,
      heartbeatMs: config.events.heartbeatMs,
    },
    onError: (error) => deps.warn(error, 'event stream'),
  });
  // Wake-ups after commit: in process on every node, and across nodes through PostgreSQL.
  const notifiers: Notifier[] = [inProcessNotifier(store)];
  if (store.handle.pool) notifiers.push(postgresNotifier({ pool: store.handle.pool, onError: (error) => deps.warn(error, 'event notifier') }));

  return { redis, counters, replayCache, verifier, secretKey, box, limiter, securityLog, sessions, usernames, totp, recovery, passkeys, stepUp, methods, join, me, fieldCatalog, fields, events, streams, notifiers };
}

export type Services = ReturnType<typeof createServices>;
