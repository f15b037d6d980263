import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { SoftwareAuthenticator } from '../helpers/authenticator.js';
import { uniqueName } from '../helpers/client.js';

for (const backend of backends) {
  describe(`sign-in: sign-up, login, /me [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend);
    });
    after(() => t.close());

    it('signs up with a passkey and reads /me with the DPoP-bound token', async () => {
      const name = uniqueName('Alice');
      const device = await t.client.signUp(name);
      assert.match(device.tokens.access_token, /^vid_at_/);
      assert.equal(device.tokens.trusted, true);
      const me = await t.client.as(device, 'GET', '/api/v1/me');
      assert.equal(me.status, 200);
      assert.equal(me.body.username, name.toLowerCase(), 'shown in its canonical form');
      assert.equal(me.body.schema_version, 1);
      assert.equal(me.headers.get('etag'), `"${me.body.version}"`);
      assert.ok(me.headers.get('vid-request-id'));
      assert.equal(me.headers.get('vid-api-version'), '1.0.0');
    });

    it('logs in again with the same passkey on a fresh DPoP key, with packed self attestation too', async () => {
      const authenticator = new SoftwareAuthenticator({ attestation: 'packed' });
      const device = await t.client.signUp(uniqueName('bob'), authenticator);
      const login = await t.client.logIn(authenticator);
      assert.equal(login.status, 200);
      assert.notEqual(login.key.jkt, device.key.jkt);
      const me = await t.client.call('GET', '/api/v1/me', { key: login.key, token: login.body.access_token });
      assert.equal(me.status, 200);
      assert.equal(me.body.id, device.accountId);
    });
  });
}
