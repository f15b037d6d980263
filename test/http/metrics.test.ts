// Metrics (docs/operations.md, Metrics): prom-client behind METRICS_PORT on a listener of its
// own, never on the API port; counters from the auth plugin and services, the limits, the
// stream hub and the signal log; label values bounded (route templates, fixed reason lists);
// with METRICS_PORT unset, no listener and no hook at all.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import type { ParsedFamily, ParsedSample } from 'parse-prometheus-text-format';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/platform/config.js';
import { DPOP_REFUSAL_REASONS } from '../../src/platform/crypto/dpop.js';
import { PUBLIC_ORIGIN, startTestApp, testConfig } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';
import type { Device } from '../helpers/client.js';
import { openSse } from '../helpers/nodes.js';
import { STEP_UP_HEADER, addPasskeyDetailed } from '../helpers/step-up.js';

const ME = '/api/v1/me';
const RENEW = '/api/v1/auth/token/renew';

type Families = Map<string, ParsedFamily>;

/**
 * GET /metrics over HTTP, parsed by a Prometheus text-format parser. That parser folds a
 * histogram with labels into one sample, losing them, so histograms are read as the plain
 * series they are in the text (`…_bucket`, `…_sum`, `…_count`, each with its labels).
 */
async function scrape(url: string): Promise<Families> {
  const res = await fetch(url);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  const histograms = [...text.matchAll(/^# TYPE (\S+) histogram$/gm)].map((match) => match[1]!);
  const families: Families = new Map();
  // The series of one histogram come label set by label set (buckets, sum, count, buckets, …): one family each, merged by name.
  for (const family of parsePrometheusTextFormat(text.replace(/^(# TYPE \S+) histogram$/gm, '$1 untyped'))) {
    const seen = families.get(family.name);
    if (seen) seen.metrics.push(...family.metrics);
    else families.set(family.name, family);
  }
  for (const name of histograms) families.set(name, { name, help: '', type: 'HISTOGRAM', metrics: [] });
  return families;
}

function samples(families: Families, name: string): ParsedSample[] {
  const family = families.get(name);
  assert.ok(family, `${name} is exposed`);
  return family.metrics;
}

/** The value of the series with these labels, 0 when it does not exist. */
function valueOf(families: Families, name: string, labels: Record<string, string> = {}): number {
  const sample = samples(families, name).find((s) => Object.entries(labels).every(([k, v]) => s.labels?.[k] === v));
  return sample ? Number(sample.value) : 0;
}

function labelValues(families: Families, name: string, label: string): Set<string> {
  return new Set(samples(families, name).map((s) => s.labels?.[label] ?? ''));
}

for (const backend of backends) {
  describe(`metrics: GET /metrics on METRICS_PORT [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    let url: string;
    before(async () => {
      // Small public and stream limits, so a 429 is a few requests away.
      // Six: the three 401s below count as public requests of the address too (every answer is counted).
      t = await startTestApp(backend, { METRICS_PORT: '0', RATE_LIMIT_PUBLIC_PER_MIN: '6', EVENTS_MAX_STREAMS_PER_ACCOUNT: '1' });
      url = t.metricsUrl!;
    });
    after(() => t.close());

    let ada: Device;
    let laptop: Pick<Device, 'key' | 'tokens'>;

    it('counts sign-ups, logins, step-ups, renewals, refused proofs and replays, 429s and signals, with bounded labels', async () => {
      ada = await t.client.signUp(uniqueName('metrics'));
      const login = await t.client.logIn(ada.authenticator);
      assert.equal(login.status, 200);
      laptop = { key: login.key, tokens: login.body };

      // Refused proofs: none at all, then one made for another method.
      const missing = await t.client.call('GET', ME, { token: ada.tokens.access_token });
      assert.equal(missing.status, 401);
      const wrongMethod = await t.client.as(ada, 'GET', ME, { proofOptions: { htm: 'POST' } });
      assert.equal(wrongMethod.status, 401);
      // A replay: the same proof twice.
      const proof = await ada.key.proof('GET', PUBLIC_ORIGIN + ME, { accessToken: ada.tokens.access_token });
      assert.equal((await t.client.call('GET', ME, { token: ada.tokens.access_token, headers: { dpop: proof } })).status, 200);
      const replay = await t.client.call('GET', ME, { token: ada.tokens.access_token, headers: { dpop: proof } });
      assert.equal(replay.status, 401);
      assert.equal(replay.body.code, 'invalid_dpop_proof');

      // Step-up: one that verifies (adding a passkey), one that does not.
      await addPasskeyDetailed(t.client, ada);
      const badStepUp = await t.client.as(ada, 'POST', '/api/v1/auth/methods/passkeys/begin', { headers: { [STEP_UP_HEADER]: 'not-an-assertion', 'idempotency-key': randomUUID() } });
      assert.equal(badStepUp.status, 403);

      // Renewal, then the old refresh token again: reuse, which revokes ada's first session.
      const renewed = await t.client.call('POST', RENEW, { body: { refresh_token: ada.tokens.refresh_token }, key: ada.key });
      assert.equal(renewed.status, 200);
      const reused = await t.client.call('POST', RENEW, { body: { refresh_token: ada.tokens.refresh_token }, key: ada.key });
      assert.equal(reused.body.code, 'refresh_token_reused');

      // An unknown route, named after the user: no route matches it (it counts toward the public limit).
      assert.equal((await fetch(`${t.baseUrl}/api/v1/${ada.username}/${ada.accountId}`, { method: 'POST' })).status, 404);
      // The public card of a real username (ada shows none: 404) until the per-address limit answers 429.
      let limited = false;
      for (let i = 0; i < 5 && !limited; i++) limited = (await t.client.call('GET', `/api/v1/public/${ada.username}`)).status === 429;
      assert.ok(limited, 'the public limit answered 429');

      const m = await scrape(url);
      assert.equal(valueOf(m, 'vid_auth_sign_ups_total', { outcome: 'succeeded' }), 1);
      assert.equal(valueOf(m, 'vid_auth_logins_total', { method: 'passkey', outcome: 'succeeded' }), 1);
      assert.equal(valueOf(m, 'vid_auth_step_ups_total', { outcome: 'succeeded' }), 1);
      assert.equal(valueOf(m, 'vid_auth_step_ups_total', { outcome: 'refused' }), 1);
      assert.equal(valueOf(m, 'vid_auth_renewals_total', { outcome: 'renewed' }), 1);
      assert.equal(valueOf(m, 'vid_auth_renewals_total', { outcome: 'reused' }), 1);
      assert.equal(valueOf(m, 'vid_dpop_proofs_refused_total', { reason: 'missing' }), 1);
      assert.equal(valueOf(m, 'vid_dpop_proofs_refused_total', { reason: 'htm' }), 1);
      assert.equal(valueOf(m, 'vid_dpop_replays_refused_total'), 1);
      assert.equal(valueOf(m, 'vid_rate_limited_total', { policy: 'public' }), 1);
      assert.equal(valueOf(m, 'vid_shed_total', { reason: 'in_flight' }), 0);
      // ada's first session was revoked by the reuse: her laptop's is the one left.
      assert.equal(valueOf(m, 'vid_sessions_live'), 1);
      assert.ok(valueOf(m, 'vid_signals_written_total', { kind: 'sessions.changed' }) >= 3, 'sign-up, login and the revocation each signal sessions.changed');
      assert.ok(valueOf(m, 'vid_signals_written_total', { kind: 'methods.changed' }) >= 1, 'adding a passkey signals methods.changed');

      // Every refusal reason exists from the start (at 0), and no other value does.
      assert.deepEqual([...labelValues(m, 'vid_dpop_proofs_refused_total', 'reason')].sort(), [...DPOP_REFUSAL_REASONS].sort());

      // Requests by route template and status class; a raw path, username or id never becomes a label.
      assert.equal(valueOf(m, 'vid_http_requests_total', { method: 'POST', route: '/api/v1/auth/register/finish', status_class: '2xx' }), 1);
      assert.equal(valueOf(m, 'vid_http_requests_total', { method: 'GET', route: '/api/v1/me', status_class: '4xx' }), 3);
      assert.ok(valueOf(m, 'vid_http_requests_total', { method: 'GET', route: '/api/v1/public/:username', status_class: '4xx' }) >= 3, 'public cards, 404 then 429');
      assert.equal(valueOf(m, 'vid_http_requests_total', { method: 'POST', route: 'unmatched', status_class: '4xx' }), 1);
      assert.equal(m.get('vid_http_request_duration_seconds')?.type, 'HISTOGRAM');
      assert.ok(valueOf(m, 'vid_http_request_duration_seconds_count', { method: 'GET', route: '/api/v1/me', status_class: '2xx' }) >= 1, 'GET /me latency observed');
      assert.equal(
        valueOf(m, 'vid_http_request_duration_seconds_bucket', { method: 'GET', route: '/api/v1/me', status_class: '2xx', le: '+Inf' }),
        valueOf(m, 'vid_http_request_duration_seconds_count', { method: 'GET', route: '/api/v1/me', status_class: '2xx' }),
      );
      for (const name of ['vid_http_requests_total', 'vid_http_request_duration_seconds_count']) {
        for (const route of labelValues(m, name, 'route')) {
          assert.ok(route === 'unmatched' || route.startsWith('/'), `route label ${route}`);
          assert.ok(!route.includes(ada.username) && !route.includes(ada.accountId), `route label ${route} names a user`);
        }
        assert.deepEqual([...labelValues(m, name, 'status_class')].filter((c) => !/^[1-5]xx$/.test(c)), []);
      }

      // Node's default process metrics, and the backend's own.
      assert.ok(valueOf(m, 'process_cpu_seconds_total') > 0, 'process CPU');
      assert.ok(m.has('nodejs_eventloop_lag_seconds'), 'event-loop lag');
      if (backend.name === 'sqlite') {
        const commits = valueOf(m, 'vid_sqlite_group_commits_total');
        assert.ok(commits > 0, 'group commits counted');
        assert.ok(valueOf(m, 'vid_sqlite_group_commit_units_total') >= commits, 'each commit acknowledges at least one unit');
        assert.ok(!m.has('vid_pg_pool_waiting'), 'no pool on SQLite');
      } else {
        assert.equal(valueOf(m, 'vid_pg_pool_max'), 5);
        assert.ok(valueOf(m, 'vid_pg_pool_connections') >= 1, 'pool connections');
        assert.equal(valueOf(m, 'vid_pg_pool_waiting'), 0);
        assert.ok(!m.has('vid_sqlite_group_commits_total'), 'no group commit on PostgreSQL');
      }
    });

    it('shows open event streams; a refused stream request is counted like any request', async () => {
      const stream = await openSse(t.client, laptop);
      assert.equal(stream.status, 200);
      // One stream per account here: another session's is refused, and the 429 counted by its limit.
      const phone = await t.client.logIn(ada.authenticator);
      const second = await openSse(t.client, { key: phone.key, tokens: phone.body });
      assert.equal(second.status, 429);
      await second.waitForEnd();
      const open = await scrape(url);
      assert.equal(valueOf(open, 'vid_event_streams_open'), 1);
      assert.equal(valueOf(open, 'vid_rate_limited_total', { policy: 'streams' }), 1);
      assert.equal(valueOf(open, 'vid_event_streams_stalled'), 0);
      assert.equal(valueOf(open, 'vid_event_streams_dropped_slow_total'), 0);

      stream.close();
      let closed = open;
      for (let i = 0; i < 50 && valueOf(closed, 'vid_event_streams_open') !== 0; i++) {
        await sleep(20);
        closed = await scrape(url);
      }
      assert.equal(valueOf(closed, 'vid_event_streams_open'), 0);

      // An open stream hijacks its reply: it is the hub's gauge, not a request with a latency.
      // A refused one (no proof) is an ordinary 401.
      const refused = await openSse(t.client, laptop, { noProof: true });
      assert.equal(refused.status, 401);
      await refused.waitForEnd();
      const after = await scrape(url);
      assert.equal(valueOf(after, 'vid_http_requests_total', { method: 'GET', route: '/api/v1/events/stream', status_class: '4xx' }), 2);
      assert.equal(valueOf(after, 'vid_http_requests_total', { method: 'GET', route: '/api/v1/events/stream', status_class: '2xx' }), 0);
      assert.equal(valueOf(after, 'vid_dpop_proofs_refused_total', { reason: 'missing' }), 2);
    });

    it('is never served on the API port, and its own listener serves GET /metrics and nothing else', async () => {
      const onApi = await fetch(`${t.baseUrl}/metrics`);
      assert.equal(onApi.status, 404);
      assert.equal(onApi.headers.get('content-type')?.split(';')[0], 'application/problem+json');
      const base = url.slice(0, -'/metrics'.length);
      assert.equal((await fetch(`${base}/`)).status, 404);
      assert.equal((await fetch(`${base}/api/v1/me`)).status, 404);
      assert.equal((await fetch(url, { method: 'POST' })).status, 405);
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    });
  });

  describe(`metrics: off unless METRICS_PORT is set [${backend.name}]`, { skip: backend.skip }, () => {
    const listeners = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap').length;

    for (const on of [false, true]) {
      it(on ? 'with METRICS_PORT: one listener, the request hook, and both close with the app' : 'without METRICS_PORT: no listener, no request hook', async () => {
        const database = await backend.open();
        const before = listeners();
        const { app, metricsUrl } = await buildApp({ config: testConfig(database.databaseUrl, on ? { METRICS_PORT: '0' } : {}), store: database.store, logger: false });
        try {
          assert.equal(app.hasPlugin('vid-request-metrics'), on);
          assert.equal(listeners() - before, on ? 1 : 0);
          assert.equal(metricsUrl !== undefined, on);
          if (metricsUrl) assert.equal((await fetch(metricsUrl)).status, 200);
        } finally {
          await app.close();
          await database.cleanup();
        }
        // A closed server's handle goes away a few turns of the loop later.
        for (let i = 0; i < 50 && listeners() !== before; i++) await sleep(10);
        assert.equal(listeners(), before);
        if (metricsUrl) await assert.rejects(fetch(metricsUrl), 'the listener closed with the app');
      });
    }
  });
}

describe('metrics: configuration', () => {
  it('is off by default, on 127.0.0.1 when METRICS_PORT is set, and never on the API port', () => {
    assert.equal(loadConfig({}).metrics, undefined);
    assert.deepEqual(loadConfig({ METRICS_PORT: '9464' }).metrics, { host: '127.0.0.1', port: 9464 });
    assert.deepEqual(loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' }).metrics, { host: '0.0.0.0', port: 9464 });
    assert.throws(() => loadConfig({ PORT: '8080', METRICS_PORT: '8080' }), /METRICS_PORT must differ from PORT/);
    assert.throws(() => loadConfig({ METRICS_PORT: 'x' }), /METRICS_PORT/);
  });
});
