import { createPrivateKey, createPublicKey } from 'node:crypto';
import type { JsonWebKey, KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { projectRoot } from './paths.js';

/**
 * Typed configuration, read from the environment once at start. Every variable is listed in the
 * README's configuration table; `loadConfig` refuses bad values at start rather than at use.
 */
export interface DeprecatedRoute {
  /** When the route was (or will be) deprecated, RFC 9745. */
  deprecatedAt: Date;
  /** When it stops answering, RFC 8594. */
  sunsetAt: Date;
  /** A document explaining the migration. */
  link: string;
}

export type TrustProxy = false | number | string[];

export type ReplayCacheKind = 'store' | 'memory' | 'redis';

/** Another region of the same operator this one federates with (REGIONS). */
export interface RegionPeer {
  id: string;
  /** Its public origin, no trailing slash: where requests to it go, and what it signs against. */
  url: string;
  /** Ed25519 public keys by kid: every key listed is accepted (rotation with overlap, as decision 110). */
  keys: Map<string, KeyObject>;
}

export interface RegionsConfig {
  /** This region (REGION) and, with REGION_KEY, the one key it signs with; without it nothing is sent. */
  self: { id: string; key?: { kid: string; privateKey: KeyObject } };
  peers: RegionPeer[];
  /** REGION_REQUEST_MAX_AGE_S: the longest a signature may be valid (expires - created). */
  maxAgeSeconds: number;
  peer(id: string): RegionPeer | undefined;
}

export interface Config {
  host: string;
  port: number;
  publicOrigin: string;
  region: string;
  logLevel: string;
  /**
   * Which proxies' X-Forwarded-For to believe (docs/deploy.md): false (none, the socket's peer is
   * the client), a number of hops in front of the node, or the proxies' addresses and ranges.
   */
  trustProxy: TrustProxy;
  bodyLimitBytes: number;
  database: { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string; poolSize: number };
  redisUrl?: string;
  /**
   * How Redis may fail without failing a request: each command gives up after commandTimeoutMs,
   * and after a failure the breaker sends everything to the fallback for breakerOpenMs
   * (limits/breaker.ts, docs/deploy.md "When PostgreSQL or Redis goes away").
   */
  redis: { commandTimeoutMs: number; breakerOpenMs: number };
  /**
   * Seconds between SIGTERM and closing the port, while /health/ready answers 503 and everything
   * else is still served: long enough for the balancer's health checks to take the node out.
   */
  drainDelaySeconds: number;
  webauthn: { rpId: string; rpName: string; origins: string[] };
  tokens: {
    accessTtlSeconds: number;
    refreshTtlSeconds: number;
    trustedMaxAgeSeconds: number;
    ephemeralMaxAgeSeconds: number;
  };
  dpop: { algorithms: string[]; iatWindowSeconds: number; clockSkewSeconds: number; replayCache: ReplayCacheKind };
  rateLimits: { authPerMinute: number; userPerMinute: number; publicPerMinute: number; webPerMinute: number; probePerMinute: number; davPerMinute: number };
  /** Failed authentications on session routes, per client address and per DPoP key, in a minute (decision 003). */
  authFailures: { perClientPerMinute: number; perKeyPerMinute: number };
  quotaPerMonth: number;
  shedding: { maxEventLoopDelayMs: number; maxInFlight: number; maxHeapUsedMb: number; retryAfterSeconds: number };
  deprecatedRoutes: Record<string, DeprecatedRoute>;
  reservedUsernamesFile: string;
  /** 32 bytes (base64url) sealing TOTP secrets and recovery keys at rest; see loadSecretKey. */
  secretKey?: string;
  secretKeyFile: string;
  /** SECRET_KEYS_ACCEPTED: older (or coming) keys that open sealed values but never seal (decision 110). */
  acceptedSecretKeys: string[];
  /**
   * Recovery attempts per client address, and per account those made with the account's right
   * recovery key (only its holder can spend them: authenticator-code guesses), decision 250.
   */
  recovery: { perClientPerHour: number; keyHolderPerHour: number };
  /** Join redeems and starts per address and key; factor tries per attempt and per address (decision 250). */
  join: { perClientPerHour: number; perKeyPerHour: number; factorPerAttempt: number; factorPerClientPerHour: number };
  corsOrigins: string[];
  /** Federation between this operator's regions: keys and peers (src/platform/federation/). */
  regions: RegionsConfig;
  /** Signal log and streams (PRODUCT §7, docs/decisions/020-event-signals.md). */
  events: { retentionDays: number; maxStreamsPerAccount: number; heartbeatMs: number; streamBufferBytes: number; stallTimeoutMs: number };
  /** PRODUCT §8: days a deleted account can be restored; days its username stays held after the purge. */
  lifecycle: { graceDays: number; usernameHoldDays: number };
  /** How often each node prunes what expired and purges the accounts whose grace is over. */
  maintenanceIntervalMs: number;
  /** Prometheus metrics on a listener of their own (METRICS_PORT; 0 picks a free port); off when unset. */
  metrics?: { host: string; port: number };
  /**
   * For the capacity benchmark only (bench/owners.ts): withoutCardChangeLog measures the
   * database's limit for card-changing transactions without the card-change log. Followers miss
   * every change while it is set; never set in production.
   */
  benchmark: { withoutCardChangeLog: boolean };
  apiVersion: string;
}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  return value;
}

/** Seconds, fractions allowed (tests shorten timers), returned in milliseconds. */
function millis(env: Env, name: string, fallbackSeconds: number, minSeconds: number): number {
  const raw = env[name];
  const value = raw === undefined || raw === '' ? fallbackSeconds : Number(raw);
  if (!Number.isFinite(value) || value < minSeconds) throw new Error(`${name} must be a number of seconds >= ${minSeconds}, got "${raw}"`);
  return Math.round(value * 1000);
}

function list(env: Env, name: string, fallback: string[]): string[] {
  const raw = env[name];
  if (!raw) return fallback;
  return raw.split(',').map((s) => s.trim()).filter(Boolean);
}

function origin(name: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`${name} must be an absolute URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${name} must be http(s)`);
  return url.origin;
}

/**
 * TRUST_PROXY: a number of hops (`1` for one balancer) or a list of the balancers' addresses and
 * CIDR ranges (`10.0.0.0/8,fd00::/8`; proxy-addr's `loopback`, `linklocal`, `uniquelocal` too).
 * The client is then the nearest address that is not a trusted proxy, so an X-Forwarded-For the
 * client wrote itself is never believed. `true` (believe every hop, which hands every
 * per-address limit to the client) is refused.
 */
function trustProxy(raw: string | undefined): TrustProxy {
  const value = raw?.trim() ?? '';
  if (value === '' || value === 'false' || value === '0') return false;
  if (/^\d+$/.test(value)) return Number(value);
  if (value === 'true') {
    throw new Error('TRUST_PROXY=true would believe any X-Forwarded-For a client writes; give the number of proxies in front of the node (1 for one balancer) or their addresses');
  }
  const entries = value.split(',').map((s) => s.trim()).filter(Boolean);
  for (const entry of entries) {
    if (!isProxyAddress(entry)) throw new Error(`TRUST_PROXY: "${entry}" is neither an address, a CIDR range nor loopback/linklocal/uniquelocal`);
  }
  return entries;
}

function isProxyAddress(entry: string): boolean {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  const bits = Number(prefix);
  return /^\d+$/.test(prefix) && bits <= (family === 4 ? 32 : 128);
}

function deprecatedRoutes(raw: string | undefined): Record<string, DeprecatedRoute> {
  if (!raw) return {};
  const parsed = JSON.parse(raw) as Record<string, { deprecated_at: string; sunset_at: string; link: string }>;
  const out: Record<string, DeprecatedRoute> = {};
  for (const [route, spec] of Object.entries(parsed)) {
    const deprecatedAt = new Date(spec.deprecated_at);
    const sunsetAt = new Date(spec.sunset_at);
    if (Number.isNaN(deprecatedAt.getTime()) || Number.isNaN(sunsetAt.getTime())) {
      throw new Error(`DEPRECATED_ROUTES["${route}"] needs ISO dates`);
    }
    // RFC 8594 §3: a Sunset earlier than the deprecation makes no sense.
    if (sunsetAt < deprecatedAt) throw new Error(`DEPRECATED_ROUTES["${route}"]: sunset before deprecation`);
    out[route] = { deprecatedAt, sunsetAt, link: spec.link };
  }
  return out;
}

/** Never on the public API port: /metrics is for the operator's network (docs/operations.md). */
function metrics(env: Env, apiPort: number): Config['metrics'] {
  if (env.METRICS_PORT === undefined || env.METRICS_PORT === '') return undefined;
  const port = int(env, 'METRICS_PORT', 0, 0);
  if (port > 65535) throw new Error(`METRICS_PORT must be a port number, got "${env.METRICS_PORT}"`);
  if (port !== 0 && port === apiPort) throw new Error('METRICS_PORT must differ from PORT: metrics are never served on the API port');
  return { host: env.METRICS_HOST || '127.0.0.1', port };
}

/** A switch that is on with `1`, off when unset, empty or `0`; anything else is refused. */
function flag(env: Env, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === '0') return false;
  if (raw === '1') return true;
  throw new Error(`${name} must be 1 or unset, got "${raw}"`);
}

function acceptedSecretKeys(env: Env): string[] {
  const keys = list(env, 'SECRET_KEYS_ACCEPTED', []);
  for (const key of keys) {
    if (Buffer.from(key, 'base64url').length !== 32) throw new Error('SECRET_KEYS_ACCEPTED must list 32-byte base64url keys (43 characters each), separated by commas');
  }
  return keys;
}

function secretKey(env: Env, databaseUrl: string | undefined): string | undefined {
  const raw = env.SECRET_KEY;
  if (raw) {
    if (Buffer.from(raw, 'base64url').length !== 32) throw new Error('SECRET_KEY must be 32 bytes in base64url (43 characters)');
    return raw;
  }
  // Several nodes must share one key: a per-node key file would make other nodes' secrets unreadable.
  if (databaseUrl) throw new Error('SECRET_KEY is required with DATABASE_URL (generate one: openssl rand -base64 32 | tr "+/" "-_" | tr -d "=")');
  return undefined;
}

const REGION_ID = /^[a-z]{2,8}$/;

function parseJson(name: string, raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw new Error(`${name} must be JSON (see npm run region-key)`);
  }
}

function kidOf(what: string, jwk: Record<string, unknown>): string {
  const kid = jwk.kid;
  if (typeof kid !== 'string' || kid === '' || kid.length > 64 || !/^[\x21-\x7e]+$/.test(kid)) {
    throw new Error(`${what} needs a "kid": up to 64 visible ASCII characters, no spaces (e.g. "eu-2026-11")`);
  }
  return kid;
}

function isOkpEd25519(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && (value as Record<string, unknown>).kty === 'OKP' && (value as Record<string, unknown>).crv === 'Ed25519';
}

/** REGION_KEY: an Ed25519 private JWK with a kid, whose "x" must be the public half of its "d". */
function regionKey(raw: string): { kid: string; privateKey: KeyObject } {
  const jwk = parseJson('REGION_KEY', raw);
  if (!isOkpEd25519(jwk)) throw new Error('REGION_KEY must be an Ed25519 JWK ({"kty":"OKP","crv":"Ed25519",…})');
  if (typeof jwk.d !== 'string' || typeof jwk.x !== 'string') throw new Error('REGION_KEY must be a private JWK, with "d" and "x"');
  const kid = kidOf('REGION_KEY', jwk);
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', d: jwk.d, x: jwk.x } as JsonWebKey, format: 'jwk' });
  } catch {
    throw new Error('REGION_KEY is not a valid Ed25519 private key');
  }
  // Node builds the key from "d" alone: a wrong "x" would go unnoticed here and fail at every peer.
  if (createPublicKey(privateKey).export({ format: 'jwk' }).x !== jwk.x) throw new Error('REGION_KEY: "x" is not the public key of "d"');
  return { kid, privateKey };
}

function peerKey(what: string, value: unknown): { kid: string; key: KeyObject } {
  if (!isOkpEd25519(value)) throw new Error(`${what} must be an Ed25519 public JWK ({"kty":"OKP","crv":"Ed25519","x":…,"kid":…})`);
  if ('d' in value) throw new Error(`${what} is a private key: list only the public half (without "d")`);
  if (typeof value.x !== 'string') throw new Error(`${what} needs "x"`);
  const kid = kidOf(what, value);
  try {
    return { kid, key: createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: value.x } as JsonWebKey, format: 'jwk' }) };
  } catch {
    throw new Error(`${what} is not a valid Ed25519 public key`);
  }
}

/**
 * REGIONS: the other regions of the operator, `[{"id":"us","url":"https://us.vid.example","keys":[<public JWK>, …]}]`.
 * A kid names one key of one region everywhere, so the kid of a signature tells its sender.
 */
function regionPeers(raw: string | undefined, self: string): RegionPeer[] {
  if (raw === undefined || raw.trim() === '') return [];
  const parsed = parseJson('REGIONS', raw);
  if (!Array.isArray(parsed)) throw new Error('REGIONS must be a JSON array of {"id","url","keys"}');
  const kids = new Set<string>();
  const ids = new Set<string>();
  return parsed.map((entry: unknown, i) => {
    const at = `REGIONS[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new Error(`${at} must be an object {"id","url","keys"}`);
    const { id, url, keys } = entry as Record<string, unknown>;
    if (typeof id !== 'string' || !REGION_ID.test(id)) throw new Error(`${at}.id must be 2 to 8 lowercase letters, got ${JSON.stringify(id)}`);
    if (id === self) throw new Error(`${at}.id is "${id}", this region's own REGION: list only the other regions`);
    if (ids.has(id)) throw new Error(`REGIONS lists "${id}" twice`);
    ids.add(id);
    if (typeof url !== 'string') throw new Error(`${at}.url must be the region's public origin (https://us.vid.example)`);
    const peerUrl = regionOrigin(`${at}.url`, url);
    if (!Array.isArray(keys) || keys.length === 0) throw new Error(`${at}.keys must list at least one Ed25519 public JWK`);
    const byKid = new Map<string, KeyObject>();
    keys.forEach((value: unknown, k) => {
      const { kid, key } = peerKey(`${at}.keys[${k}]`, value);
      if (kids.has(kid)) throw new Error(`REGIONS: kid "${kid}" is listed twice; every key needs a kid of its own`);
      kids.add(kid);
      byKid.set(kid, key);
    });
    return { id, url: peerUrl, keys: byKid };
  });
}

/** An http(s) origin: a trailing slash is dropped; a path, query, fragment or credentials are refused. */
function regionOrigin(name: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`${name} must be an absolute URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${name} must be http(s), got "${raw}"`);
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new Error(`${name} must be an origin without path, query or credentials (https://us.vid.example), got "${raw}"`);
  }
  return url.origin;
}

function regions(env: Env, self: string): RegionsConfig {
  const key = env.REGION_KEY ? regionKey(env.REGION_KEY) : undefined;
  const peers = regionPeers(env.REGIONS, self);
  if ((key || peers.length > 0) && !REGION_ID.test(self)) throw new Error(`REGION must be 2 to 8 lowercase letters when REGION_KEY or REGIONS is set, got "${self}"`);
  const maxAgeSeconds = int(env, 'REGION_REQUEST_MAX_AGE_S', 60, 1);
  if (maxAgeSeconds > 3600) throw new Error(`REGION_REQUEST_MAX_AGE_S must be at most 3600, got "${env.REGION_REQUEST_MAX_AGE_S}"`);
  const byId = new Map(peers.map((peer) => [peer.id, peer]));
  return { self: key ? { id: self, key } : { id: self }, peers, maxAgeSeconds, peer: (id) => byId.get(id) };
}

/**
 * The operator's commands (`npm run admin`, `purge`, `rotate-secrets`) run with the service's own
 * environment, often inside its container, but serve nothing: they never open the metrics
 * listener, whose port the running service already holds.
 */
export function loadCommandConfig(env: Env = process.env): Config {
  return { ...loadConfig(env), metrics: undefined };
}

export function loadConfig(env: Env = process.env): Config {
  const port = int(env, 'PORT', 8080, 0);
  const publicOrigin = origin('PUBLIC_ORIGIN', env.PUBLIC_ORIGIN ?? `http://localhost:${port}`);
  const databaseUrl = env.DATABASE_URL;
  const redisUrl = env.REDIS_URL || undefined;
  const replayCache = (env.DPOP_REPLAY_CACHE ?? (redisUrl ? 'redis' : 'store')) as ReplayCacheKind;
  if (!['store', 'memory', 'redis'].includes(replayCache)) throw new Error('DPOP_REPLAY_CACHE must be store, memory or redis');
  if (replayCache === 'redis' && !redisUrl) throw new Error('DPOP_REPLAY_CACHE=redis needs REDIS_URL');
  const region = env.REGION ?? 'eu';
  const algorithms = list(env, 'DPOP_ALGS', ['ES256', 'ES384', 'EdDSA']);
  for (const alg of algorithms) {
    if (!['ES256', 'ES384', 'EdDSA'].includes(alg)) throw new Error(`DPOP_ALGS: unsupported algorithm ${alg}`);
  }
  return {
    host: env.HOST ?? '0.0.0.0',
    port,
    publicOrigin,
    region,
    logLevel: env.LOG_LEVEL ?? 'info',
    trustProxy: trustProxy(env.TRUST_PROXY),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 64 * 1024, 1024),
    database: databaseUrl
      ? { kind: 'postgres', url: databaseUrl, poolSize: int(env, 'DATABASE_POOL_SIZE', 10, 1) }
      : { kind: 'sqlite', path: env.SQLITE_PATH === ':memory:' ? ':memory:' : resolve(env.SQLITE_PATH ?? './data/vid.sqlite') },
    redisUrl,
    redis: {
      commandTimeoutMs: int(env, 'REDIS_COMMAND_TIMEOUT_MS', 50, 1),
      breakerOpenMs: int(env, 'REDIS_BREAKER_OPEN_MS', 2000, 0),
    },
    drainDelaySeconds: int(env, 'DRAIN_DELAY_S', 5, 0),
    webauthn: {
      rpId: env.RP_ID ?? new URL(publicOrigin).hostname,
      rpName: env.RP_NAME ?? 'VID',
      origins: list(env, 'WEBAUTHN_ORIGINS', [publicOrigin]).map((o) => origin('WEBAUTHN_ORIGINS', o)),
    },
    tokens: {
      accessTtlSeconds: int(env, 'ACCESS_TOKEN_TTL_S', 600, 30),
      refreshTtlSeconds: int(env, 'REFRESH_TOKEN_TTL_S', 30 * 24 * 3600, 60),
      trustedMaxAgeSeconds: int(env, 'SESSION_MAX_AGE_S', 90 * 24 * 3600, 60),
      ephemeralMaxAgeSeconds: int(env, 'EPHEMERAL_SESSION_MAX_AGE_S', 12 * 3600, 60),
    },
    dpop: {
      algorithms,
      iatWindowSeconds: int(env, 'DPOP_IAT_WINDOW_S', 60, 1),
      clockSkewSeconds: int(env, 'DPOP_CLOCK_SKEW_S', 5, 0),
      replayCache,
    },
    rateLimits: {
      authPerMinute: int(env, 'RATE_LIMIT_AUTH_PER_MIN', 60, 1),
      userPerMinute: int(env, 'RATE_LIMIT_USER_PER_MIN', 1200, 1),
      publicPerMinute: int(env, 'RATE_LIMIT_PUBLIC_PER_MIN', 600, 1),
      webPerMinute: int(env, 'RATE_LIMIT_WEB_PER_MIN', 1200, 1),
      probePerMinute: int(env, 'RATE_LIMIT_PROBE_PER_MIN', 600, 1),
      davPerMinute: int(env, 'RATE_LIMIT_DAV_PER_MIN', 120, 1),
    },
    authFailures: {
      perClientPerMinute: int(env, 'AUTH_FAILURES_PER_CLIENT_PER_MIN', 30, 1),
      perKeyPerMinute: int(env, 'AUTH_FAILURES_PER_KEY_PER_MIN', 20, 1),
    },
    quotaPerMonth: int(env, 'QUOTA_PER_MONTH', 1_000_000, 1),
    shedding: {
      maxEventLoopDelayMs: int(env, 'SHED_MAX_EVENT_LOOP_DELAY_MS', 1000, 0),
      maxInFlight: int(env, 'SHED_MAX_IN_FLIGHT', 2000, 0),
      maxHeapUsedMb: int(env, 'SHED_MAX_HEAP_MB', 0, 0),
      retryAfterSeconds: int(env, 'SHED_RETRY_AFTER_S', 2, 1),
    },
    deprecatedRoutes: deprecatedRoutes(env.DEPRECATED_ROUTES),
    reservedUsernamesFile: env.RESERVED_USERNAMES_FILE ?? join(projectRoot, 'data', 'reserved-usernames.txt'),
    secretKey: secretKey(env, databaseUrl),
    acceptedSecretKeys: acceptedSecretKeys(env),
    secretKeyFile: resolve(env.SECRET_KEY_FILE ?? join(dirname(resolve(env.SQLITE_PATH ?? './data/vid.sqlite')), 'secret.key')),
    recovery: {
      perClientPerHour: int(env, 'RECOVERY_PER_CLIENT_PER_HOUR', 20, 1),
      keyHolderPerHour: int(env, 'RECOVERY_KEY_HOLDER_PER_HOUR', 5, 1),
    },
    join: {
      perClientPerHour: int(env, 'JOIN_PER_CLIENT_PER_HOUR', 60, 1),
      perKeyPerHour: int(env, 'JOIN_PER_KEY_PER_HOUR', 10, 1),
      factorPerAttempt: int(env, 'JOIN_FACTOR_PER_ATTEMPT', 5, 1),
      factorPerClientPerHour: int(env, 'JOIN_FACTOR_PER_CLIENT_PER_HOUR', 20, 1),
    },
    corsOrigins: list(env, 'CORS_ORIGINS', []),
    regions: regions(env, region),
    events: {
      retentionDays: int(env, 'EVENTS_RETENTION_DAYS', 30, 1),
      maxStreamsPerAccount: int(env, 'EVENTS_MAX_STREAMS_PER_ACCOUNT', 10, 1),
      heartbeatMs: millis(env, 'EVENTS_HEARTBEAT_S', 15, 0.01),
      // At least Node's 16 KiB high-water mark, so a full buffer always ends in a 'drain'.
      streamBufferBytes: int(env, 'EVENTS_STREAM_BUFFER_KB', 32, 16) * 1024,
      stallTimeoutMs: millis(env, 'EVENTS_STALL_TIMEOUT_S', 30, 0.01),
    },
    lifecycle: {
      graceDays: int(env, 'ACCOUNT_GRACE_DAYS', 30, 1),
      usernameHoldDays: int(env, 'USERNAME_HOLD_DAYS', 365, 0),
    },
    maintenanceIntervalMs: millis(env, 'MAINTENANCE_INTERVAL_S', 60, 1),
    metrics: metrics(env, port),
    benchmark: { withoutCardChangeLog: flag(env, 'BENCH_WITHOUT_CARD_CHANGE_LOG') },
    apiVersion: '1.0.0',
  };
}
