// The spec's Limits: "Responses carry RateLimit-* headers", every answer, not only the API's
// successes: a session route's 401, a route that does not exist, the health probes, the address
// book, the web app's pages, and an answer refused before anything was counted. Each is counted
// under the policy that applies to it, and says so (PRODUCT §0).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { dav, davLogin } from '../helpers/address-book.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';
import { withLoggedApp } from '../helpers/logged-app.js';

const DAV_LIMIT = 4;

function assertCounted(headers: Headers, policy: string, why: string): void {
  const limit = headers.get('ratelimit-limit');
  const remaining = headers.get('ratelimit-remaining');
  const reset = headers.get('ratelimit-reset');
  assert.ok(limit && remaining && reset, `${why}: RateLimit-Limit/Remaining/Reset`);
  assert.equal(headers.get('ratelimit-policy'), `"${policy}";q=${limit};w=60`, `${why}: RateLimit-Policy`);
  assert.equal(headers.get('ratelimit'), `"${policy}";r=${remaining};t=${reset}`, `${why}: RateLimit`);
}

async function get(t: TestApp, path: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(t.baseUrl + path, { redirect: 'manual', ...init });
  await res.arrayBuffer();
  return res;
}

for (const backend of backends) {
  describe(`conventions: RateLimit-* on every answer [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend, { RATE_LIMIT_WEB_PER_MIN: '500', RATE_LIMIT_PROBE_PER_MIN: '400', RATE_LIMIT_PUBLIC_PER_MIN: '300', RATE_LIMIT_DAV_PER_MIN: String(DAV_LIMIT) });
    });
    after(() => t.close());

    it('a session route refused before its account is known (401) is counted per address as a public request', async () => {
      const none = await get(t, '/api/v1/me');
      assert.equal(none.status, 401);
      assertCounted(none.headers, 'public', 'no credentials');
      const bad = await get(t, '/api/v1/me', { headers: { authorization: 'DPoP not-a-token', dpop: 'not.a.proof' } });
      assert.equal(bad.status, 401);
      assertCounted(bad.headers, 'public', 'a bad token');
    });

    it('a route that does not exist (404, 405), under /api and elsewhere, for any method', async () => {
      for (const [method, path, status, policy] of [['GET', '/api/v1/nope', 404, 'public'], ['POST', '/api/v1/nope', 404, 'public'], ['DELETE', '/api/v1/me', 405, 'public'], ['GET', '/assets/nope.js', 404, 'web']] as const) {
        const res = await get(t, path, { method });
        assert.equal(res.status, status, `${method} ${path}`);
        assertCounted(res.headers, policy, `${method} ${path}`);
      }
    });

    it('the health probes, counted in the node\'s own memory', async () => {
      for (const path of ['/health/live', '/health/ready']) {
        const res = await get(t, path);
        assert.equal(res.status, 200);
        assertCounted(res.headers, 'probe', path);
        assert.equal(res.headers.get('ratelimit-limit'), '400');
      }
    });

    it('the web app\'s pages', async () => {
      for (const path of ['/', '/security', '/@someone']) {
        const res = await get(t, path);
        assertCounted(res.headers, 'web', path);
        assert.equal(res.headers.get('ratelimit-limit'), '500');
      }
    });

    it('the address book: per address before the password is known, per password after it, 429 + Retry-After past its limit', async () => {
      const challenged = await dav(t.baseUrl, null, 'PROPFIND', '/dav/', { depth: '0' });
      assert.equal(challenged.status, 401);
      assertCounted(challenged.headers, 'public', 'DAV without a password');
      const wellKnown = await dav(t.baseUrl, null, 'GET', '/.well-known/carddav');
      assert.equal(wellKnown.status, 301);
      assertCounted(wellKnown.headers, 'public', 'the well-known redirect');

      const phone = await davLogin(t, await t.client.signUp(uniqueName('dav')));
      const remaining: string[] = [];
      for (let i = 0; i < DAV_LIMIT; i++) {
        const res = await dav(t.baseUrl, phone, 'PROPFIND', '/dav/', { depth: '0' });
        assert.equal(res.status, 207, res.text);
        assertCounted(res.headers, 'dav', 'an authenticated DAV request');
        assert.ok(res.headers.get('quota-remaining'), 'the account\'s monthly quota');
        remaining.push(res.headers.get('ratelimit-remaining')!);
      }
      assert.deepEqual(remaining, ['3', '2', '1', '0']);
      const refused = await dav(t.baseUrl, phone, 'PROPFIND', '/dav/', { depth: '0' });
      assert.equal(refused.status, 429);
      assert.ok(Number(refused.headers.get('retry-after')) >= 1, 'Retry-After');
      assertCounted(refused.headers, 'dav', 'the refusal');
      // Another password of the same account has its own allowance.
      const laptop = await davLogin(t, await t.client.signUp(uniqueName('dav2')), 'Laptop');
      assert.equal((await dav(t.baseUrl, laptop, 'PROPFIND', '/dav/', { depth: '0' })).status, 207);
    });
  });

  describe(`conventions: a shed answer is a warning in the log [${backend.name}]`, { skip: backend.skip }, () => {
    it('logs 503 overloaded at warn, with its code and no stack; a failure of ours stays an error', async () => {
      await withLoggedApp(backend, async ({ lines, client }) => {
        // @fastify/under-pressure samples the heap about once a second: wait for its first sample.
        for (const deadline = Date.now() + 3000; Date.now() < deadline; await sleep(50)) {
          if ((await client.call('POST', '/api/v1/auth/username/check', { body: { username: uniqueName('shed') }, unchecked: true })).status === 503) break;
        }
        const records = lines.map((line) => JSON.parse(line) as { level: number; msg?: string; code?: string; err?: { stack?: string } });
        const shed = records.filter((r) => r.code === 'overloaded');
        assert.ok(shed.length > 0, 'the shed request is logged');
        for (const record of shed) {
          assert.equal(record.level, 40, 'warn, not error');
          assert.equal(record.err, undefined, 'no error object, no stack');
        }
        assert.ok(!records.some((r) => r.level >= 50), 'nothing at error level');
      }, { SHED_MAX_HEAP_MB: '1', SHED_RETRY_AFTER_S: '3' });
    });
  });
}
