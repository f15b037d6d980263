import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';

const ORIGIN = 'https://app.example.com';

for (const backend of backends) {
  describe(`CORS for browser clients on other origins [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend, { CORS_ORIGINS: ORIGIN });
    });
    after(() => t.close());

    it('answers a preflight for a DPoP request from an allowed origin', async () => {
      const response = await fetch(`${t.baseUrl}/api/v1/me`, {
        method: 'OPTIONS',
        headers: { origin: ORIGIN, 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'authorization, dpop, if-match, content-type' },
      });
      assert.equal(response.status, 204);
      assert.equal(response.headers.get('access-control-allow-origin'), ORIGIN);
      const allowed = response.headers.get('access-control-allow-headers')!.toLowerCase();
      for (const header of ['authorization', 'dpop', 'if-match', 'idempotency-key', 'vid-step-up']) assert.ok(allowed.includes(header), header);
      assert.equal(response.headers.get('access-control-allow-credentials'), null);
    });

    it('exposes WWW-Authenticate and DPoP-Nonce (RFC 9449) and our headers to the page', async () => {
      const device = await t.client.signUp(uniqueName('cors'));
      const me = await t.client.as(device, 'GET', '/api/v1/me', { headers: { origin: ORIGIN } });
      assert.equal(me.status, 200);
      assert.equal(me.headers.get('access-control-allow-origin'), ORIGIN);
      const exposed = me.headers.get('access-control-expose-headers')!.toLowerCase();
      for (const header of ['www-authenticate', 'dpop-nonce', 'vid-request-id', 'etag', 'retry-after', 'ratelimit-remaining']) assert.ok(exposed.includes(header), header);
    });

    it('grants nothing to an origin not on the list', async () => {
      const response = await fetch(`${t.baseUrl}/api/v1/auth/login/begin`, { method: 'POST', headers: { origin: 'https://evil.example' } });
      assert.equal(response.headers.get('access-control-allow-origin'), null);
    });
  });
}
