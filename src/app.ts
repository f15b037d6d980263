import websocket from '@fastify/websocket';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { allMigrations, modules } from './modules/index.js';
import { wireModules } from './modules/wiring.js';
import { createAccountData } from './platform/account-data.js';
import type { AccountData } from './platform/account-data.js';
import { createCeremonies } from './platform/ceremonies.js';
import { systemClock } from './platform/clock.js';
import type { Clock } from './platform/clock.js';
import type { Config } from './platform/config.js';
import { createDpopVerifier } from './platform/crypto/dpop.js';
import { createSecretBox } from './platform/crypto/secret-box.js';
import { loadKeyring, subkey } from './platform/crypto/secret-key.js';
import { resealAll } from './platform/crypto/rotation.js';
import type { ColumnReport } from './platform/crypto/rotation.js';
import { createSealedColumns } from './platform/crypto/sealed-columns.js';
import { locateIp } from './platform/geo/locate.js';
import './platform/http/fastify-types.js';
import { lazyCompilers } from './platform/http/lazy-compile.js';
import { openApiDocumentRoute } from './platform/http/openapi-document.js';
import { createEdge } from './platform/http/edge.js';
import { installJsonBodyParser } from './platform/http/json-body.js';
import { deferredChildLogger, loggableRequest, RequestLog } from './platform/http/request-log.js';
import { cacheControlPlugin } from './platform/http/plugins/cache-control.js';
import { clientPlugin } from './platform/http/plugins/client.js';
import { corsPlugin } from './platform/http/plugins/cors.js';
import { deprecationPlugin } from './platform/http/plugins/deprecation.js';
import { dpopAuthPlugin } from './platform/http/plugins/dpop-auth.js';
import { IDEMPOTENT_BODY_PURPOSE, idempotencyPlugin } from './platform/http/plugins/idempotency.js';
import { loadSheddingPlugin } from './platform/http/plugins/load-shedding.js';
import { API_PREFIX, openApiPlugin } from './platform/http/plugins/openapi.js';
import { problemPlugin } from './platform/http/plugins/problem.js';
import { accountLimits, createRateLimits, rateLimitPlugin } from './platform/http/plugins/rate-limit.js';
import { requestIdFor, requestIdPlugin } from './platform/http/plugins/request-id.js';
import { stepUpPlugin } from './platform/http/plugins/step-up.js';
import { installValidators } from './platform/http/plugins/validation.js';
import { webSocketHeadersPlugin } from './platform/http/plugins/websocket-headers.js';
import { Problem } from './platform/http/schemas.js';
import { AuthenticationCredential, CreationOptions, RegistrationCredential, RequestOptions } from './platform/http/webauthn-schemas.js';
import { createAuthFailures } from './platform/limits/auth-failures.js';
import { createSharedState } from './platform/limits/shared-state.js';
import { requestMetricsPlugin } from './platform/metrics/http.js';
import { listenForScrapes } from './platform/metrics/listener.js';
import type { MetricsListener } from './platform/metrics/listener.js';
import { noMetrics } from './platform/metrics/metrics.js';
import { buildModules } from './platform/module.js';
import type { ModuleServices, Platform } from './platform/module.js';
import type { StreamHub } from './platform/signals/hub.js';
import { migrateToLatest } from './platform/store/migrate.js';
import { createStore, openDatabase } from './platform/store/store.js';
import type { Store } from './platform/store/store.js';
import { selectProtocol } from './platform/signals/websocket.js';
import { trustedProxies } from './platform/http/trusted-proxies.js';

export interface AppDeps {
  config: Config;
  /** An open, migrated store; by default one is opened from config, migrated and closed with the app. */
  store?: Store;
  clock?: Clock;
  /** pino options, or false for silence (tests). */
  logger?: boolean | object;
}

export interface VidApp {
  app: FastifyInstance;
  /** The store as the app uses it: its transactions stamp signals with the app's clock. */
  store: Store;
  /** This node's event streams (stats for tests and the benchmark). */
  streams: StreamHub;
  /** What each module declared about account data (the export-completeness test reads it). */
  accountData: AccountData;
  /** The modules' services, for operator commands (npm run purge) and tests. */
  services: ModuleServices;
  /** Compiles every route schema not yet compiled (they compile on first use; tests check all of them). */
  compileSchemas(): void;
  /** Where GET /metrics answers (its own listener) when METRICS_PORT is set. */
  metricsUrl?: string;
  /** Readiness answers 503 from now on while everything else still serves (SIGTERM, before closing). */
  drain(): void;
  /** Re-seals every declared sealed value under the current key (npm run rotate-secrets, decision 110). */
  rotateSecrets(options?: { batchSize?: number; onBatch?(column: string, done: number): void }): Promise<ColumnReport[]>;
}


const API_DESCRIPTION = `Passwordless identity: a username, passkeys, sessions bound to the device with DPoP (RFC 9449).

Conventions: single resources carry schema_version and, when mutable, version (send it back as If-Match: "<version>");
lists are {data, next_cursor, has_more} with limit (1-200, default 50) and cursor; errors are application/problem+json
(RFC 9457) with a stable code, also before any route runs: 400 invalid_url, malformed_request, host_required, invalid_json
(not JSON, not UTF-8, or a lone surrogate in a string), json_too_deep (arrays and objects past 32 levels); 404 not_found;
405 method_not_allowed with Allow; 408 request_timeout; 413 payload_too_large; 414 uri_too_long; 415 unsupported_media_type;
417 expectation_failed; 431 header_fields_too_large; 503 shutting_down; every response carries VID-Request-Id, VID-API-Version
and X-Content-Type-Options: nosniff; Idempotency-Key (a UUID) is
required where marked and replays the first response with VID-Idempotent-Replay: true for 24 hours; rate-limited responses
carry RateLimit-* headers and 429/503 carry Retry-After.`;

/** Schemas with an $id the platform's own routes and plugins use (Problem) or several modules share (WebAuthn). */
const PLATFORM_SCHEMAS = [Problem, CreationOptions, RequestOptions, RegistrationCredential, AuthenticationCredential];
const PLATFORM_TAGS = [{ name: 'meta', description: 'The contract itself' }];

/**
 * Builds the whole service: the platform (store, shared state, crypto), every module's services
 * in list order, then the platform's plugins and each module's routes. Used by the server and
 * by every test.
 */
export async function buildApp(deps: AppDeps): Promise<VidApp> {
  const { config } = deps;
  const clock = deps.clock ?? systemClock;
  const ownsStore = !deps.store;
  const store = (deps.store ?? createStore(openDatabase(config))).withClock(clock);
  if (ownsStore) await migrateToLatest(store.handle.db, store.handle.schema, allMigrations());

  let app: FastifyInstance | undefined;
  const warn = (error: unknown, what: string) => app?.log.warn({ err: error }, what);
  const shared = createSharedState(config, store, clock, { warn, info: (what) => app?.log.info(what) });
  // Metrics only with METRICS_PORT: otherwise prom-client is never loaded and every count is a no-op.
  const prometheus = config.metrics ? (await import('./platform/metrics/prometheus.js')).createPrometheusMetrics({ store, now: clock.now, warn, regions: config.regions.peers.map((peer) => peer.id) }) : undefined;
  const metrics = prometheus?.metrics ?? noMetrics;
  const keyring = loadKeyring(config);
  const box = createSecretBox(keyring.keys);
  const sealed = createSealedColumns();
  // Idempotent replies are the platform's own sealed column (the modules declare theirs).
  sealed.declare({ table: 'idempotency_records', key: ['scope', 'idem_key'], column: 'body', purpose: IDEMPOTENT_BODY_PURPOSE });
  const rateLimits = createRateLimits({
    counters: shared.counters,
    admission: shared.admission,
    limits: {
      auth: config.rateLimits.authPerMinute,
      user: config.rateLimits.userPerMinute,
      public: config.rateLimits.publicPerMinute,
      web: config.rateLimits.webPerMinute,
      probe: config.rateLimits.probePerMinute,
      dav: config.rateLimits.davPerMinute,
    },
    quotaPerMonth: config.quotaPerMonth,
    now: clock.now,
    metrics,
  });
  const platform: Platform = {
    config,
    clock,
    store,
    box,
    subkey: (purpose) => subkey(keyring.keys[0]!, purpose),
    subkeys: (purpose) => keyring.keys.map((key) => subkey(key, purpose)),
    sealed,
    limiter: shared.limiter,
    rateLimits,
    ceremonies: createCeremonies({ store, rp: config.webauthn, now: clock.now }),
    accountData: createAccountData(),
    warn,
    metrics,
  };
  const { services, parts } = buildModules(modules, platform);
  wireModules(services);
  metrics.readStreamsWith(() => services.streams.stats());
  const verifier = createDpopVerifier(config.dpop);

  const compilers = lazyCompilers();
  // Errors at the edge (router, HTTP parser, upgrades, drain) as problem+json: docs/operations.md.
  const edge = createEdge({ apiVersion: config.apiVersion });
  app = Fastify({
    ...edge.serverOptions,
    logger:
      deps.logger === false
        ? false
        : {
            level: config.logLevel,
            redact: ['req.headers.authorization', 'req.headers.dpop', 'req.headers["vid-step-up"]'],
            serializers: { req: loggableRequest },
            // A test's own destination or level; the redaction above always applies.
            ...(typeof deps.logger === 'object' ? deps.logger : {}),
          },
    // One record per request instead of Fastify's two.
    logController: new RequestLog(),
    // Each request's child logger is made when it first writes a record (request-log.ts).
    childLoggerFactory: (logger, bindings, options) => deferredChildLogger(logger, bindings, options),
    trustProxy: trustedProxies(config.trustProxy),
    bodyLimit: config.bodyLimitBytes,
    genReqId: (req) => requestIdFor(req.headers['vid-request-id']),
    requestIdHeader: false,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    schemaController: { compilersFactory: { buildSerializer: compilers.serializerFactory } },
  });

  const schemas = [...PLATFORM_SCHEMAS, ...modules.flatMap((module) => module.schemas ?? [])];
  const tags = [...modules.flatMap((module) => module.tags ?? []), ...PLATFORM_TAGS];
  const operations = Object.assign({}, ...modules.map((module) => module.operations ?? {}));
  // PRODUCT §0: every body is JSON; anything else is 415, not a string for the validator to refuse.
  app.removeContentTypeParser('text/plain');
  // Strict UTF-8, a depth cap and well-formed strings, for every route (decision 130).
  installJsonBodyParser(app);
  installValidators(app, compilers, schemas);
  await app.register(requestIdPlugin, { apiVersion: config.apiVersion });
  if (prometheus) await app.register(requestMetricsPlugin, { observe: prometheus.observeRequest });
  await app.register(cacheControlPlugin);
  await app.register(problemPlugin, { challenge: verifier.challenge, routes: edge.routes, metrics });
  await app.register(edge.plugin);
  // Upgrade requests run through every hook below (authentication included) before upgrading.
  // Registered this early so a request refused by any later hook (load shedding) is known to be
  // an upgrade and its socket is closed after the refusal.
  await app.register(websocket, { options: { maxPayload: 4096, handleProtocols: selectProtocol, server: edge.webSocketUpgrades } });
  // The 101 carries the headers the hooks below set on the reply, as every other answer does.
  await app.register(webSocketHeadersPlugin);
  await app.register(corsPlugin, { origins: config.corsOrigins });
  await app.register(loadSheddingPlugin, { ...config.shedding, metrics });
  await app.register(deprecationPlugin, { routes: config.deprecatedRoutes });
  await app.register(openApiPlugin, { version: config.apiVersion, description: API_DESCRIPTION, schemas, tags, operations });
  await app.register(clientPlugin, { locate: locateIp });
  // Order matters: authentication with the per-account limits in its admission (decision 350),
  // then idempotency (scoped by principal).
  const authFailures = createAuthFailures(shared.limiter, clock.now, config.authFailures);
  await app.register(dpopAuthPlugin, {
    verifier,
    admission: shared.admission,
    accountLimits: accountLimits(rateLimits),
    authenticate: services.sessions.authenticate,
    failures: authFailures,
    publicOrigin: config.publicOrigin,
    now: clock.now,
    metrics,
  });
  await app.register(rateLimitPlugin, { limits: rateLimits });
  await app.register(idempotencyPlugin, { store, box: platform.box, now: clock.now });
  await app.register(stepUpPlugin, { verify: services.stepUp.verify });

  await app.register(
    async (api) => {
      await api.register(openApiDocumentRoute);
      for (const part of parts) if (part.routes) await api.register(part.routes);
    },
    { prefix: API_PREFIX },
  );
  // Outside the API prefix, in list order: the health probes, and last the web app at /.
  for (const part of parts) if (part.rootRoutes) await app.register(part.rootRoutes);

  // Expired challenges, jtis, idempotency records and signals go in the background; nothing waits for it.
  const pruner = setInterval(() => {
    const now = clock.now();
    shared.counters.prune?.(now);
    shared.replayCache.prune?.(now);
    authFailures.prune(now);
    store.prune(now).catch((error) => warn(error, 'prune failed'));
    for (const part of parts) part.prune?.(now).catch((error) => warn(error, `${part.name} prune failed`));
  }, config.maintenanceIntervalMs);
  pruner.unref();

  app.addHook('preClose', async () => {
    for (const part of parts) part.stop?.();
  });
  let metricsListener: MetricsListener | undefined;
  app.addHook('onClose', async () => {
    clearInterval(pruner);
    await metricsListener?.close();
    prometheus?.close();
    for (const part of parts) await part.close?.();
    shared.redis?.disconnect();
    if (ownsStore) await store.close();
  });

  await app.ready();
  if (prometheus && config.metrics) {
    // Its own listener, never a route of the API server (listener.ts); it closes with the app.
    metricsListener = await listenForScrapes(prometheus.registry, config.metrics, warn).catch(async (error: unknown) => {
      await app?.close();
      throw error;
    });
  }
  for (const part of parts) await part.start?.();
  return { app, store, streams: services.streams, accountData: platform.accountData, services, compileSchemas: compilers.compileAll,
    metricsUrl: metricsListener?.url,
    rotateSecrets: (options = {}) => resealAll({ store, box, sealed, ...options }),
    drain: () => {
      for (const part of parts) part.drain?.();
    },
  };
}
