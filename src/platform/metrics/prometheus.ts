import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { DPOP_REFUSAL_REASONS } from '../crypto/dpop.js';
import { REGION_REFUSAL_REASONS, UNKNOWN_REGION } from '../federation/reasons.js';
import type { SignalRecord } from '../signals/log.js';
import type { Store } from '../store/store.js';
import { LOGIN_METHODS, OUTCOMES, RATE_LIMIT_POLICIES, RENEWAL_OUTCOMES, SHED_REASONS } from './metrics.js';
import type { Metrics, StreamStats } from './metrics.js';

/**
 * The metrics behind METRICS_PORT, on prom-client (docs/operations.md lists them). One Registry
 * per app, not prom-client's global one, so several apps in one test process do not collide.
 * Loaded by app.ts only when METRICS_PORT is set: with metrics off, prom-client is never loaded.
 */
export interface PrometheusMetrics {
  metrics: Metrics;
  registry: Registry;
  /** One answered request and its latency. */
  observeRequest(method: string, route: string, statusClass: string, seconds: number): void;
  close(): void;
}

/** A live-sessions count older than this is asked again (a scrape every 15 s costs one query). */
const LIVE_SESSIONS_TTL_MS = 10_000;
/**
 * Server-side latency (the response written, not the client's round trip). GET /me answers in
 * well under a millisecond on SQLite, so the buckets start at 0.5 ms.
 */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export function createPrometheusMetrics(deps: { store: Store; now(): number; warn(error: unknown, what: string): void; regions?: string[] }): PrometheusMetrics {
  const registry = new Registry();
  const registers = [registry];
  // Node's own: CPU, memory, heap spaces, event-loop delay, GC, handles (standard names, so stock dashboards work).
  collectDefaultMetrics({ register: registry });

  const requests = new Counter({ name: 'vid_http_requests_total', help: 'HTTP requests answered, by method, route template and status class', labelNames: ['method', 'route', 'status_class'], registers });
  const latency = new Histogram({
    name: 'vid_http_request_duration_seconds',
    help: 'Time from receiving a request to its response being written, by method, route template and status class',
    labelNames: ['method', 'route', 'status_class'],
    buckets: LATENCY_BUCKETS,
    registers,
  });

  const signUps = new Counter({ name: 'vid_auth_sign_ups_total', help: 'Sign-ups finished (account, first passkey, first session), by outcome', labelNames: ['outcome'], registers });
  const logins = new Counter({ name: 'vid_auth_logins_total', help: 'Logins finished (a session opened on a device), by method and outcome', labelNames: ['method', 'outcome'], registers });
  const renewals = new Counter({ name: 'vid_auth_renewals_total', help: 'Refresh-token renewals, by outcome (reused: a refresh token presented twice, session revoked)', labelNames: ['outcome'], registers });
  const stepUps = new Counter({ name: 'vid_auth_step_ups_total', help: 'Step-up assertions presented, by outcome', labelNames: ['outcome'], registers });
  const proofsRefused = new Counter({ name: 'vid_dpop_proofs_refused_total', help: 'DPoP proofs refused (401 invalid_dpop_proof), by reason', labelNames: ['reason'], registers });
  const replaysRefused = new Counter({ name: 'vid_dpop_replays_refused_total', help: 'Otherwise valid DPoP proofs refused because their jti was used before', registers });
  const rateLimited = new Counter({ name: 'vid_rate_limited_total', help: 'Requests refused with 429 by the rate limits and the monthly quota, by policy', labelNames: ['policy'], registers });
  const shed = new Counter({ name: 'vid_shed_total', help: 'Requests shed with 503 under load, by reason', labelNames: ['reason'], registers });
  // Regions are the configured peers (REGIONS) and `unknown`: a fixed set, never what a request claims.
  const regionRequests = new Counter({ name: 'vid_region_requests_total', help: 'Signed requests from other regions accepted, by sending region', labelNames: ['region'], registers });
  const regionRefusals = new Counter({ name: 'vid_region_requests_refused_total', help: 'Requests to the federation routes refused at the signature check, by region (unknown when not known) and reason', labelNames: ['region', 'reason'], registers });
  // The sending side, per receiving peer: requests its outbox sender had taken, and the deliveries (subjects) they carried.
  const deliveryRequests = new Counter({ name: 'vid_region_delivery_requests_total', help: 'Delivery requests this region sent to another region and had taken (200), by receiving region', labelNames: ['region'], registers });
  const deliveries = new Counter({ name: 'vid_region_deliveries_total', help: 'Deliveries (one subject\'s state each) in the delivery requests this region had taken by another region, by receiving region', labelNames: ['region'], registers });
  // Kinds come from the signal catalogue (signals/catalogue.ts): a fixed list.
  const signals = new Counter({ name: 'vid_signals_written_total', help: 'Signals committed to the event log (one per receiving account), by kind', labelNames: ['kind'], registers });

  // Every bounded series exists from the start at 0, so rate() and absent-series alerts work
  // before the first event.
  for (const outcome of OUTCOMES) {
    signUps.inc({ outcome }, 0);
    stepUps.inc({ outcome }, 0);
    for (const method of LOGIN_METHODS) logins.inc({ method, outcome }, 0);
  }
  for (const outcome of RENEWAL_OUTCOMES) renewals.inc({ outcome }, 0);
  for (const reason of DPOP_REFUSAL_REASONS) proofsRefused.inc({ reason }, 0);
  for (const policy of RATE_LIMIT_POLICIES) rateLimited.inc({ policy }, 0);
  for (const reason of SHED_REASONS) shed.inc({ reason }, 0);
  for (const region of deps.regions ?? []) {
    regionRequests.inc({ region }, 0);
    deliveryRequests.inc({ region }, 0);
    deliveries.inc({ region }, 0);
  }
  for (const region of [...(deps.regions ?? []), UNKNOWN_REGION]) {
    for (const reason of REGION_REFUSAL_REASONS) regionRefusals.inc({ region, reason }, 0);
  }

  // Collect-time values: read only when scraped, so the request path pays nothing for them.
  const { handle } = deps.store;
  if (handle.groupCommit) {
    const stats = handle.groupCommit;
    // Units per commit is the batch size: rate(units) / rate(commits).
    monotonic('vid_sqlite_group_commits_total', 'SQLite physical commits (each one fsync)', () => stats.commits);
    monotonic('vid_sqlite_group_commit_units_total', 'Transactions and statements acknowledged by those commits', () => stats.units);
  }
  // Registered before the live-sessions count, so they are read before its query asks the pool
  // for a connection (collects start in registration order): the scrape does not see itself waiting.
  if (handle.pool) {
    const pool = handle.pool;
    new Gauge({ name: 'vid_pg_pool_max', help: 'Most connections the PostgreSQL pool opens', registers, collect() { this.set(pool.options.max ?? 10); } });
    new Gauge({ name: 'vid_pg_pool_connections', help: 'Connections the PostgreSQL pool holds open', registers, collect() { this.set(pool.totalCount); } });
    new Gauge({ name: 'vid_pg_pool_idle', help: 'Open PostgreSQL connections not in use', registers, collect() { this.set(pool.idleCount); } });
    new Gauge({ name: 'vid_pg_pool_waiting', help: 'Queries waiting for a PostgreSQL connection', registers, collect() { this.set(pool.waitingCount); } });
  }

  let liveSessions: ((now: number) => Promise<number>) | undefined;
  let liveCache: { at: number; value: number } | undefined;
  let liveQuery: Promise<number> | undefined;
  new Gauge({
    name: 'vid_sessions_live',
    help: 'Sessions neither revoked nor expired, all nodes (a query, cached 10 s)',
    registers,
    async collect() {
      if (!liveSessions) return;
      const started = performance.now();
      if (!liveCache || started - liveCache.at >= LIVE_SESSIONS_TTL_MS) {
        // Concurrent scrapes share one query.
        liveQuery ??= liveSessions(deps.now()).finally(() => (liveQuery = undefined));
        try {
          liveCache = { at: started, value: await liveQuery };
        } catch (error) {
          // A failed count keeps the last value rather than failing the whole scrape.
          deps.warn(error, 'counting live sessions for /metrics failed');
        }
      }
      if (liveCache) this.set(liveCache.value);
    },
  });

  let streams: (() => StreamStats) | undefined;
  new Gauge({ name: 'vid_event_streams_open', help: 'Event streams (SSE and WebSocket) open on this node', registers, collect() { if (streams) this.set(streams().streams); } });
  new Gauge({ name: 'vid_event_streams_stalled', help: 'Open event streams whose client is not draining its buffer', registers, collect() { if (streams) this.set(streams().stalled); } });
  monotonic('vid_event_streams_dropped_slow_total', 'Event streams dropped because their client did not drain its buffer in time (slow consumers)', () => streams?.().droppedSlowConsumers);

  /** A counter mirroring a total kept elsewhere (group commit, the stream hub), advanced at scrape time. */
  function monotonic(name: string, help: string, read: () => number | undefined): void {
    let seen = 0;
    new Counter({
      name,
      help,
      registers,
      collect() {
        const value = read();
        if (value === undefined) return;
        if (value > seen) this.inc(value - seen);
        seen = value;
      },
    });
  }

  function signalsCommitted(records: SignalRecord[]): void {
    // A fan-out commits thousands of one kind: counted per run of a kind, not per record.
    let kind = '';
    let run = 0;
    for (const record of records) {
      if (record.kind !== kind) {
        if (run > 0) signals.inc({ kind }, run);
        kind = record.kind;
        run = 0;
      }
      run++;
    }
    if (run > 0) signals.inc({ kind }, run);
  }
  const unsubscribe = deps.store.onSignalsCommitted(signalsCommitted);

  const metrics: Metrics = {
    enabled: true,
    signUp: (outcome) => signUps.inc({ outcome }),
    login: (method, outcome) => logins.inc({ method, outcome }),
    renewal: (outcome) => renewals.inc({ outcome }),
    stepUp: (outcome) => stepUps.inc({ outcome }),
    proofRefused: (reason) => proofsRefused.inc({ reason }),
    replayRefused: () => replaysRefused.inc(),
    rateLimited: (policy) => rateLimited.inc({ policy }),
    shed: (reason) => shed.inc({ reason }),
    regionRequest: (region) => regionRequests.inc({ region }),
    regionRequestRefused: (region, reason) => regionRefusals.inc({ region, reason }),
    regionDeliveriesSent(region, count) {
      deliveryRequests.inc({ region });
      deliveries.inc({ region }, count);
    },
    countLiveSessionsWith(count) {
      liveSessions = count;
    },
    readStreamsWith(stats) {
      streams = stats;
    },
  };

  return {
    metrics,
    registry,
    observeRequest(method, route, statusClass, seconds) {
      const labels = { method, route, status_class: statusClass };
      requests.inc(labels);
      latency.observe(labels, seconds);
    },
    close: () => void unsubscribe(),
  };
}
