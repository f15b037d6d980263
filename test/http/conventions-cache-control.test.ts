// PRODUCT §0 (2026-11-28): every answer to an authenticated request carries Cache-Control, errors
// included, so no browser reuses a 401, 403, 404 or 410 after the state changed. The trap it
// closes: a friend's card answered 410 while their account was deleted, Chromium kept that
// answer by heuristic freshness, and after the restore the card never came back.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import type { Device } from '../helpers/client.js';
import { API, startSocialApp } from '../helpers/social.js';
import type { Social } from '../helpers/social.js';
import { stepUp } from '../helpers/step-up.js';

for (const backend of backends) {
  describe(`Cache-Control on authenticated answers [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    let s: Social;
    before(async () => ({ t, s } = await startSocialApp(backend)));
    after(() => t.close());

    const cacheControl = (res: { headers: Headers }) => res.headers.get('cache-control');

    it('a card is revalidated while it shows, and its 410 while the owner is deleted is never stored', async () => {
      const alice = await s.person('alice');
      const phone = await s.field(alice, { type: 'phone', value: '+49 30 22732152' });
      const work = await s.profile(alice, 'Work');
      await s.expose(alice, work.id, phone.id);
      const bob = await s.person('bob');
      const contact = await s.connect(bob, alice, work.id);

      const card = await s.get(bob, `/contacts/${contact}/card`);
      assert.equal(card.status, 200);
      assert.equal(cacheControl(card), 'private, no-cache', 'revalidated by its ETag');

      const deleted = await t.client.as(alice, 'DELETE', `${API}/account`, { headers: { 'vid-step-up': await stepUp(t.client, alice) } });
      assert.equal(deleted.status, 202, JSON.stringify(deleted.body));
      const gone = await s.get(bob, `/contacts/${contact}/card`, { 'if-none-match': card.headers.get('etag')! });
      assert.equal(gone.status, 410);
      assert.equal(cacheControl(gone), 'no-store');

      assert.equal((await s.post(alice, '/account/undelete', {})).status, 200);
      const back = await s.get(bob, `/contacts/${contact}/card`);
      assert.equal(back.status, 200);
      assert.equal(cacheControl(back), 'private, no-cache');
    });

    it('refusals of every kind: a refused token, no token on a route that needs one, an unknown path, a missing resource, a bad body', async () => {
      const carol: Device = await s.person('carol');
      const answers = {
        'a signed-in read': await s.get(carol, '/me'),
        'a missing contact (404)': await s.get(carol, '/contacts/sub_nothing'),
        // Not in the document, so asked without the checking client: credentials, and no route.
        'an unknown path (404)': await fetch(`${t.baseUrl}${API}/no-such-thing`, { headers: { authorization: `DPoP ${carol.tokens.access_token}` } }),
        'a bad body (400)': await s.post(carol, '/contacts', { nobody: true }),
        'a refused token (401)': await t.client.call('GET', `${API}/me`, { headers: { authorization: 'DPoP not-a-token' } }),
        'no token where one is needed (401)': await t.client.call('GET', `${API}/contacts`),
      };
      assert.equal(answers['an unknown path (404)'].status, 404);
      for (const [what, res] of Object.entries(answers)) assert.equal(cacheControl(res), 'no-store', `${what}: ${res.status}`);
    });

    it('leaves public answers to an unauthenticated request cacheable as they were', async () => {
      const catalog = await t.client.call('GET', `${API}/field-types`);
      assert.match(cacheControl(catalog) ?? '', /^public/);
    });
  });
}
