// PRODUCT §0 / STANDARDS "Rate limits and retries": RateLimit-* (spec) plus the draft-10 pair,
// 429 with Retry-After, monthly Quota-* per account, counters shared through Redis by several
// nodes, load shedding with 503 + Retry-After while health probes still answer.
import assert from 'node:assert/strict';
import { randomInt, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { createManualClock } from '../../src/platform/clock.js';
import { backends } from '../helpers/backends.js';
import type { TestBackend } from '../helpers/backends.js';
import { PUBLIC_ORIGIN, startTestApp, testConfig } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { TestClient, uniqueName } from '../helpers/client.js';
import { createContractChecker } from '../helpers/contract.js';
import type { CallResult } from '../helpers/client.js';
import { expectProblem } from '../helpers/problem.js';

const CHECK = '/api/v1/auth/username/check';
const MINUTE = 60_000;
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

function assertRateHeaders(res: CallResult, policy: string, limit: number, remaining: number, reset: number): void {
  assert.equal(res.headers.get('ratelimit-limit'), String(limit));
  assert.equal(res.headers.get('ratelimit-remaining'), String(remaining));
  assert.equal(res.headers.get('ratelimit-reset'), String(reset));
  assert.equal(res.headers.get('ratelimit-policy'), `"${policy}";q=${limit};w=60`);
  assert.equal(res.headers.get('ratelimit'), `"${policy}";r=${remaining};t=${reset}`);
}

function check(t: TestApp, name = uniqueName('rl')): Promise<CallResult> {
  return t.client.call('POST', CHECK, { body: { username: name } });
}

/** Puts the server's clock `offsetMs` into a minute, so window arithmetic is exact. */
function atMinute(t: TestApp, minuteStart: number, offsetMs: number): void {
  t.clock.set(minuteStart + offsetMs);
}

function nextMonthStart(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

for (const backend of backends) {
  describe(`conventions: rate limits on auth routes [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend, { RATE_LIMIT_AUTH_PER_MIN: '3' });
    });
    after(() => t.close());

    it('counts down RateLimit-* headers, answers the 4th call with 429 rate_limited + Retry-After, and lets it pass a minute later', async () => {
      const minute = Math.floor(t.clock.now() / MINUTE) * MINUTE + 10 * MINUTE;
      atMinute(t, minute, 15_000);
      const first = await check(t);
      assert.equal(first.status, 200);
      assertRateHeaders(first, 'auth', 3, 2, 45);
      t.clock.advance(5_000);
      const second = await check(t);
      assert.equal(second.status, 200);
      assertRateHeaders(second, 'auth', 3, 1, 40);
      const third = await check(t);
      assert.equal(third.status, 200);
      assertRateHeaders(third, 'auth', 3, 0, 40);
      assert.equal(third.headers.get('retry-after'), null);

      const fourth = await check(t);
      expectProblem(fourth, 429, 'rate_limited');
      assert.equal(fourth.headers.get('retry-after'), '40');
      assertRateHeaders(fourth, 'auth', 3, 0, 40);
      // The limit is per route class: every unauthenticated auth route draws on the same bucket.
      const begin = await t.client.call('POST', '/api/v1/auth/login/begin');
      expectProblem(begin, 429, 'rate_limited');
      assert.ok(begin.headers.get('retry-after'));

      t.clock.advance(40_000); // the next window opens
      const later = await check(t);
      assert.equal(later.status, 200, JSON.stringify(later.body));
      assertRateHeaders(later, 'auth', 3, 2, 60);
      assert.equal(later.headers.get('retry-after'), null);
    });

    it('counts the health probes under a policy of their own, never the sign-in routes\' allowance', async () => {
      for (let i = 0; i < 5; i++) {
        const live = await t.client.call('GET', '/health/live', { unchecked: true });
        assert.equal(live.status, 200);
        assert.match(live.headers.get('ratelimit-policy') ?? '', /^"probe";/);
      }
    });
  });

  describe(`conventions: RateLimit-* on every counted answer, refusals included [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend, { RATE_LIMIT_USER_PER_MIN: '1000', RATE_LIMIT_PUBLIC_PER_MIN: '1000', RATE_LIMIT_AUTH_PER_MIN: '1000' });
    });
    after(() => t.close());

    /** Each answer drew exactly one from its bucket and says so, whatever its status. */
    function countsDown(answers: Array<[string, CallResult]>, policy: string): void {
      let previous: number | undefined;
      for (const [what, res] of answers) {
        const remaining = Number(res.headers.get('ratelimit-remaining'));
        assert.equal(res.headers.get('ratelimit-limit'), '1000', `${what} (${res.status}) without RateLimit-Limit`);
        assert.ok(Number.isInteger(remaining), `${what} (${res.status}) without RateLimit-Remaining`);
        assert.match(res.headers.get('ratelimit-reset') ?? '', /^\d+$/, `${what} (${res.status}) without RateLimit-Reset`);
        assert.equal(res.headers.get('ratelimit-policy'), `"${policy}";q=1000;w=60`, what);
        assert.match(res.headers.get('ratelimit') ?? '', new RegExp(`^"${policy}";r=${remaining};t=\\d+$`), what);
        if (policy === 'user') assert.ok(res.headers.get('quota-remaining') !== null, `${what} (${res.status}) without Quota-Remaining`);
        if (previous !== undefined) assert.equal(remaining, previous - 1, `${what} (${res.status}) was not counted once`);
        previous = remaining;
      }
    }

    it('authenticated routes: handler refusals, precondition and step-up refusals, 304s and idempotent replays', async () => {
      const device = await t.client.signUp(uniqueName('counted'));
      const key = randomUUID();
      const post = (body: unknown, headers: Record<string, string> = {}) => t.client.as(device, 'POST', '/api/v1/profiles', { body, headers });
      const created = await post({ name: 'Work' }, { 'idempotency-key': key });
      assert.equal(created.status, 201);
      const preview = await t.client.as(device, 'GET', `/api/v1/profiles/${created.body.id}/preview`);
      const answers: Array<[string, CallResult]> = [
        ['created', created],
        ['preview', preview],
        ['replay', await post({ name: 'Work' }, { 'idempotency-key': key })],
        ['key reused', await post({ name: 'Other' }, { 'idempotency-key': key })],
        ['no key', await post({ name: 'Other' })],
        ['unknown profile', await t.client.as(device, 'GET', '/api/v1/profiles/prf_unknown')],
        ['no If-Match', await t.client.as(device, 'PATCH', `/api/v1/profiles/${created.body.id}`, { body: { name: 'W' } })],
        ['stale If-Match', await t.client.as(device, 'PATCH', `/api/v1/profiles/${created.body.id}`, { body: { name: 'W' }, headers: { 'if-match': '"9"' } })],
        ['no step-up', await t.client.as(device, 'GET', '/api/v1/auth/recovery-key')],
        ['not modified', await t.client.as(device, 'GET', `/api/v1/profiles/${created.body.id}/preview`, { headers: { 'if-none-match': preview.headers.get('etag')! } })],
        ['bad cursor', await t.client.as(device, 'GET', '/api/v1/profiles?cursor=!!!')],
      ];
      assert.deepEqual(answers.map(([, res]) => res.status), [201, 200, 201, 409, 400, 404, 428, 412, 403, 304, 400]);
      countsDown(answers, 'user');
    });

    it('unauthenticated routes: 304s, 404s and validation refusals', async () => {
      const types = await t.client.call('GET', '/api/v1/field-types');
      countsDown([
        ['catalog', types],
        ['not modified', await t.client.call('GET', '/api/v1/field-types', { headers: { 'if-none-match': types.headers.get('etag')! } })],
        ['unknown type', await t.client.call('GET', '/api/v1/field-types/no_such_type')],
        ['unknown user', await t.client.call('GET', '/api/v1/public/nobody-here-at-all')],
      ], 'public');
      countsDown([
        ['check', await check(t)],
        ['invalid body', await t.client.call('POST', CHECK, { body: { username: 5 } })],
        ['unknown link', await t.client.call('GET', '/api/v1/share-links/resolve?token=x')],
      ], 'auth');
    });
  });

  describe(`conventions: monthly quota [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend, { QUOTA_PER_MONTH: '3', RATE_LIMIT_USER_PER_MIN: '50' });
    });
    after(() => t.close());

    it('sends Quota-* on authenticated responses and answers past the quota with 429 quota_exceeded + Retry-After', async () => {
      const device = await t.client.signUp(uniqueName('quota'));
      const other = await t.client.signUp(uniqueName('quota2'));
      const now = t.clock.now();
      const reset = Math.ceil((nextMonthStart(now) - now) / 1000);
      for (let i = 1; i <= 3; i++) {
        const me = await t.client.as(device, 'GET', '/api/v1/me');
        assert.equal(me.status, 200, JSON.stringify(me.body));
        assert.equal(me.headers.get('quota-limit'), '3');
        assert.equal(me.headers.get('quota-remaining'), String(3 - i));
        assert.equal(me.headers.get('quota-reset'), String(reset));
        // Authenticated routes are under the per-account limit too.
        assert.equal(me.headers.get('ratelimit-limit'), '50');
        assert.equal(me.headers.get('ratelimit-remaining'), String(50 - i));
        assert.match(me.headers.get('ratelimit-policy') ?? '', /^"user";q=50;w=60$/);
        assert.match(me.headers.get('ratelimit') ?? '', new RegExp(`^"user";r=${50 - i};t=\\d+$`));
      }
      const over = await t.client.as(device, 'GET', '/api/v1/me');
      expectProblem(over, 429, 'quota_exceeded');
      assert.equal(over.headers.get('retry-after'), String(reset));
      assert.equal(over.headers.get('quota-remaining'), '0');
      const overList = await t.client.as(device, 'GET', '/api/v1/auth/sessions');
      expectProblem(overList, 429, 'quota_exceeded');

      // Per account: another account still has its own quota.
      const fine = await t.client.as(other, 'GET', '/api/v1/me');
      assert.equal(fine.status, 200);
      assert.equal(fine.headers.get('quota-remaining'), '2');

      // Unauthenticated routes carry no quota.
      const open = await check(t);
      assert.equal(open.status, 200);
      assert.equal(open.headers.get('quota-limit'), null);

      // A new month, a new quota (a new session: the old access token has expired meanwhile).
      t.clock.set(nextMonthStart(now) + 1000);
      const login = await t.client.logIn(device.authenticator);
      assert.equal(login.status, 200);
      const renewed = await t.client.call('GET', '/api/v1/me', { key: login.key, token: login.body.access_token });
      assert.equal(renewed.status, 200, JSON.stringify(renewed.body));
      assert.equal(renewed.headers.get('quota-remaining'), '2');
    });
  });

  describe(`conventions: rate-limit counters shared through Redis [${backend.name}]`, { skip: backend.skip }, () => {
    let a: TestApp;
    let b: TestApp;
    before(async () => {
      a = await startTestApp(backend, { REDIS_URL, RATE_LIMIT_AUTH_PER_MIN: '3' });
      b = await startTestApp(backend, { REDIS_URL, RATE_LIMIT_AUTH_PER_MIN: '3' });
    });
    after(async () => {
      await a.close();
      await b.close();
    });

    it('counts one client address across two nodes', async () => {
      // A random far-future minute keeps this run's Redis keys apart from any other run's.
      const minute = Date.UTC(2200, 0, 1) + randomInt(0, 50_000_000) * MINUTE;
      atMinute(a, minute, 20_000);
      atMinute(b, minute, 20_000);
      const r1 = await check(a);
      assert.equal(r1.status, 200, JSON.stringify(r1.body));
      assertRateHeaders(r1, 'auth', 3, 2, 40);
      const r2 = await check(b);
      assert.equal(r2.status, 200);
      assertRateHeaders(r2, 'auth', 3, 1, 40);
      const r3 = await check(a);
      assert.equal(r3.status, 200);
      assertRateHeaders(r3, 'auth', 3, 0, 40);
      const r4 = await check(b);
      expectProblem(r4, 429, 'rate_limited');
      assert.equal(r4.headers.get('retry-after'), '40');
      const r5 = await check(a);
      expectProblem(r5, 429, 'rate_limited');

      a.clock.advance(MINUTE);
      b.clock.advance(MINUTE);
      const fresh = await check(b);
      assert.equal(fresh.status, 200);
      assertRateHeaders(fresh, 'auth', 3, 2, 40);
    });
  });

  describe(`conventions: load shedding [${backend.name}]`, { skip: backend.skip }, () => {
    // Built here rather than with startTestApp: the heap sampler may start shedding before
    // startTestApp has fetched the OpenAPI document over HTTP, so the contract comes from
    // app.swagger() instead, with nothing to race.
    let database: Awaited<ReturnType<TestBackend['open']>> | undefined;
    let app: FastifyInstance | undefined;
    let client: TestClient;
    before(async () => {
      database = await backend.open();
      const clock = createManualClock(Date.now());
      const config = testConfig(database.databaseUrl, { SHED_MAX_HEAP_MB: '1', SHED_RETRY_AFTER_S: '3' });
      app = (await buildApp({ config, store: database.store, clock, logger: false })).app;
      await app.listen({ host: '127.0.0.1', port: 0 });
      const document = JSON.parse(JSON.stringify(app.swagger()));
      client = new TestClient(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, PUBLIC_ORIGIN, createContractChecker(document), clock.now);
    });
    after(async () => {
      await app?.close();
      await database?.cleanup();
    });

    it('answers API calls with 503 overloaded + Retry-After while the health probes still answer', async () => {
      // @fastify/under-pressure samples the heap about once a second: wait for its first sample.
      let shed: CallResult | undefined;
      for (const deadline = Date.now() + 3000; Date.now() < deadline; ) {
        const res = await client.call('POST', CHECK, { body: { username: uniqueName('shed') } });
        if (res.status === 503) {
          shed = res;
          break;
        }
        assert.equal(res.status, 200, JSON.stringify(res.body));
        await sleep(50);
      }
      assert.ok(shed, 'a heap limit of 1 MB sheds load');
      expectProblem(shed, 503, 'overloaded');
      assert.equal(shed.headers.get('retry-after'), '3');
      // Nothing is counted for it: the node takes nothing for Retry-After seconds, and says so.
      assert.equal(shed.headers.get('ratelimit-policy'), '"unavailable";q=0;w=3');
      assert.equal(shed.headers.get('ratelimit'), '"unavailable";r=0;t=3');
      assert.deepEqual([shed.headers.get('ratelimit-limit'), shed.headers.get('ratelimit-remaining'), shed.headers.get('ratelimit-reset')], ['0', '0', '3']);
      assert.ok(shed.headers.get('vid-request-id'));
      assert.ok(shed.headers.get('vid-api-version'));

      const me = await client.call('GET', '/api/v1/me');
      expectProblem(me, 503, 'overloaded');
      assert.equal(me.headers.get('retry-after'), '3');

      const live = await client.call('GET', '/health/live', { unchecked: true });
      assert.equal(live.status, 200);
      assert.deepEqual(live.body, { status: 'ok' });
      const ready = await client.call('GET', '/health/ready', { unchecked: true });
      assert.equal(ready.status, 200);
      assert.deepEqual(ready.body, { status: 'ok' });
    });
  });

  describe(`conventions: health probes [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend);
    });
    after(() => t.close());

    it('answers /health/live and /health/ready with 200 {status: "ok"}', async () => {
      for (const path of ['/health/live', '/health/ready']) {
        const res = await t.client.call('GET', path, { unchecked: true });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('content-type')?.split(';')[0], 'application/json');
        assert.deepEqual(res.body, { status: 'ok' });
        assert.ok(res.headers.get('vid-request-id'));
        assert.ok(res.headers.get('vid-api-version'));
      }
    });
  });
}
