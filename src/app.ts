import websocket from '@fastify/websocket';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { systemClock } from './platform/clock.js';
import type { Clock } from './platform/clock.js';
import type { Config } from './platform/config.js';
import type { StreamHub } from './platform/signals/hub.js';
import { selectProtocol } from './platform/signals/websocket.js';
import { eventRoutes } from './modules/signals/routes.js';
import { eventStreamRoutes } from './modules/signals/stream-routes.js';
import { authJoinRoutes } from './modules/join/routes.js';
import { stepUpPlugin } from './platform/http/plugins/step-up.js';
import { authMethodRoutes } from './modules/methods/routes.js';
import { authRecoveryRoutes } from './modules/recovery/routes.js';
import { authStepUpRoutes } from './modules/step-up/routes.js';
import { authTotpRoutes } from './modules/methods/totp-routes.js';
import './platform/http/fastify-types.js';
import { corsPlugin } from './platform/http/plugins/cors.js';
import { deprecationPlugin } from './platform/http/plugins/deprecation.js';
import { dpopAuthPlugin } from './platform/http/plugins/dpop-auth.js';
import { idempotencyPlugin } from './platform/http/plugins/idempotency.js';
import { loadSheddingPlugin } from './platform/http/plugins/load-shedding.js';
import { API_PREFIX, openApiPlugin } from './platform/http/plugins/openapi.js';
import { lazyCompilers } from './platform/http/lazy-compile.js';
import { problemPlugin } from './platform/http/plugins/problem.js';
import { rateLimitPlugin } from './platform/http/plugins/rate-limit.js';
import { requestIdFor, requestIdPlugin } from './platform/http/plugins/request-id.js';
import { installValidators } from './platform/http/plugins/validation.js';
import { authPasskeyRoutes } from './modules/sign-in/routes.js';
import { authSessionRoutes } from './modules/sessions/routes.js';
import { authUsernameRoutes } from './modules/usernames/routes.js';
import { healthRoutes } from './modules/health/routes.js';
import { meRoutes } from './modules/me/routes.js';
import { fieldTypeRoutes } from './modules/fields/catalog-routes.js';
import { meFieldRoutes } from './modules/fields/routes.js';
import { openApiDocumentRoute } from './platform/http/openapi-document.js';
import { webAppRoutes } from './modules/web-app/routes.js';
import { createStore, openDatabase } from './platform/store/store.js';
import type { Store } from './platform/store/store.js';
import { migrateToLatest } from './platform/store/migrate.js';
import { createServices } from './modules/index.js';

export interface AppDeps {
  config: Config;
  /** An open store; by default one is opened from config and closed with the app. */
  store?: Store;
  clock?: Clock;
  /** pino options, or false for silence (tests). */
  logger?: boolean | object;
}

export interface VidApp {
  app: FastifyInstance;
  store: Store;
  /** This node's event streams (stats for tests and the benchmark). */
  streams: StreamHub;
  /** Compiles every route schema not yet compiled (they compile on first use; tests check all of them). */
  compileSchemas(): void;
}

const PRUNE_INTERVAL_MS = 60_000;

const API_DESCRIPTION = `Passwordless identity: a username, passkeys, sessions bound to the device with DPoP (RFC 9449).

Conventions: single resources carry schema_version and, when mutable, version (send it back as If-Match: "<version>");
lists are {data, next_cursor, has_more} with limit (1-200, default 50) and cursor; errors are application/problem+json
(RFC 9457) with a stable code; every response carries VID-Request-Id and VID-API-Version; Idempotency-Key (a UUID) is
required where marked and replays the first response with VID-Idempotent-Replay: true for 24 hours; rate-limited responses
carry RateLimit-* headers and 429/503 carry Retry-After.`;

/** Builds the whole service: plugins in order, then routes. Used by the server and by every test. */
export async function buildApp(deps: AppDeps): Promise<VidApp> {
  const { config } = deps;
  const clock = deps.clock ?? systemClock;
  const ownsStore = !deps.store;
  const store = deps.store ?? createStore(openDatabase(config));
  if (ownsStore) await migrateToLatest(store.handle.db, store.handle.schema);

  const services = createServices({ config, store, clock, warn: (error: unknown, what: string) => app.log.warn({ err: error }, what) });
  const { redis, counters, replayCache, verifier, box, securityLog, sessions, usernames, totp, recovery, passkeys, stepUp, methods, join, me, fieldCatalog, fields, events, streams, notifiers } = services;

  const compilers = lazyCompilers();
  const app = Fastify({
    logger:
      deps.logger === undefined
        ? {
            level: config.logLevel,
            redact: ['req.headers.authorization', 'req.headers.dpop', 'req.headers["vid-step-up"]'],
            // Paths only: query strings may carry tokens (share links) and never belong in logs.
            serializers: { req: (req: { method: string; url: string; ip?: string }) => ({ method: req.method, path: req.url.split('?')[0], ip: req.ip }) },
          }
        : deps.logger,
    trustProxy: config.trustProxy,
    bodyLimit: config.bodyLimitBytes,
    genReqId: (req) => requestIdFor(req.headers['vid-request-id']),
    requestIdHeader: false,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    schemaController: { compilersFactory: { buildSerializer: compilers.serializerFactory } },
  });

  // PRODUCT §0: every body is JSON; anything else is 415, not a string for the validator to refuse.
  app.removeContentTypeParser('text/plain');
  installValidators(app, compilers);
  await app.register(requestIdPlugin, { apiVersion: config.apiVersion });
  await app.register(problemPlugin, { challenge: verifier.challenge });
  // Upgrade requests run through every hook below (authentication included) before upgrading.
  // Registered this early so a request refused by any later hook (load shedding) is known to be
  // an upgrade and its socket is closed after the refusal.
  await app.register(websocket, { options: { maxPayload: 4096, handleProtocols: selectProtocol } });
  await app.register(corsPlugin, { origins: config.corsOrigins });
  await app.register(loadSheddingPlugin, config.shedding);
  await app.register(deprecationPlugin, { routes: config.deprecatedRoutes });
  await app.register(openApiPlugin, { version: config.apiVersion, description: API_DESCRIPTION });
  // Order matters: authentication, then per-account limits, then idempotency (scoped by principal).
  await app.register(dpopAuthPlugin, { verifier, replayCache, sessions, publicOrigin: config.publicOrigin, now: clock.now });
  await app.register(rateLimitPlugin, { counters, limits: { auth: config.rateLimits.authPerMinute, user: config.rateLimits.userPerMinute, public: config.rateLimits.publicPerMinute }, quotaPerMonth: config.quotaPerMonth, now: clock.now });
  await app.register(idempotencyPlugin, { store, box, now: clock.now });
  await app.register(stepUpPlugin, { stepUp });

  let closing = false;
  await app.register(healthRoutes, { store, isClosing: () => closing });
  await app.register(
    async (api) => {
      await api.register(openApiDocumentRoute);
      await api.register(authUsernameRoutes, { usernames });
      await api.register(authPasskeyRoutes, { passkeys });
      await api.register(authSessionRoutes, { sessions });
      await api.register(authStepUpRoutes, { stepUp });
      await api.register(authMethodRoutes, { methods });
      await api.register(authTotpRoutes, { totp, securityLog });
      await api.register(authRecoveryRoutes, { recovery, securityLog });
      await api.register(authJoinRoutes, { join, securityLog });
      await api.register(meRoutes, { me });
      await api.register(fieldTypeRoutes, { catalog: fieldCatalog, now: clock.now });
      await api.register(meFieldRoutes, { fields });
      await api.register(eventRoutes, { events, retentionDays: config.events.retentionDays });
      await api.register(eventStreamRoutes, { events, hub: streams, maxStreamsPerAccount: config.events.maxStreamsPerAccount, heartbeatMs: config.events.heartbeatMs });
    },
    { prefix: API_PREFIX },
  );
  // Last, outside the API prefix: the web app at / (its GET /* answers only what nothing else does).
  await app.register(webAppRoutes);

  // Expired challenges, jtis and idempotency records go in the background; nothing waits for it.
  const pruner = setInterval(() => {
    const now = clock.now();
    counters.prune?.(now);
    replayCache.prune?.(now);
    store.prune(now).catch((error) => app.log.warn({ err: error }, 'prune failed'));
    events.prune().catch((error) => app.log.warn({ err: error }, 'event prune failed'));
  }, PRUNE_INTERVAL_MS);
  pruner.unref();

  app.addHook('preClose', async () => {
    closing = true;
    // Open streams would hold the server open; their clients resume on another node.
    streams.stop();
  });
  app.addHook('onClose', async () => {
    clearInterval(pruner);
    for (const notifier of notifiers) await notifier.stop();
    redis?.disconnect();
    if (ownsStore) await store.close();
  });

  await app.ready();
  for (const notifier of notifiers) await notifier.start(streams);
  streams.start();
  return { app, store, streams, compileSchemas: compilers.compileAll };
}
