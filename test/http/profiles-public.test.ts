// PRODUCT §6: GET /public/{username} and /public/{username}/vcard: no sign-in, any origin,
// cacheable a minute with a strong ETag, one 404 for every way there is nothing to show; the
// vCard parsed by an independent parser (ical.js), 3.0 by default and 4.0 on request
// (test/http/vcard-negotiation.test.ts and vcard-readers.test.ts hold every vCard route to more).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import ICAL from 'ical.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';
import type { Device } from '../helpers/client.js';
import { expectProblem } from '../helpers/problem.js';

const API = '/api/v1';

for (const backend of backends) {
  describe(`public cards and vCards [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend);
    });
    after(() => t.close());

    const post = async (device: Device, path: string, body: unknown) => {
      const res = await t.client.as(device, 'POST', `${API}${path}`, { body, headers: { 'idempotency-key': randomUUID() } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body;
    };
    const get = (path: string, headers: Record<string, string> = {}) => t.client.call('GET', `${API}${path}`, { headers });

    /** A person with a public profile showing a phone and a name, and a private one showing an email. */
    async function person() {
      const device = await t.client.signUp(uniqueName('pub'));
      await t.client.as(device, 'PATCH', `${API}/me`, { body: { display_name: 'José Müller' }, headers: { 'if-match': '"1"' } });
      const name = await post(device, '/me/fields', { type: 'name', value: { given: 'José', family: 'Müller' } });
      const phone = await post(device, '/me/fields', { type: 'phone', value: '+49 30 22732152', label: 'work' });
      const email = await post(device, '/me/fields', { type: 'email', value: 'private@example.com' });
      const open = await post(device, '/profiles', { name: 'Public', public: true });
      const closed = await post(device, '/profiles', { name: 'Friends' });
      for (const id of [name.id, phone.id]) await t.client.as(device, 'PUT', `${API}/profiles/${open.id}/exposures/${id}`, { body: {} });
      await t.client.as(device, 'PUT', `${API}/profiles/${closed.id}/exposures/${email.id}`, { body: {} });
      return { device, open, closed, phone, email };
    }

    it('answers the public profile\'s card to anyone, from any origin, cacheable with a strong ETag', async () => {
      const { device, open, phone } = await person();
      const res = await get(`/public/${device.username}`, { origin: 'https://elsewhere.example' });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.headers.get('cache-control'), 'public, max-age=60');
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
      assert.ok(res.headers.get('access-control-expose-headers')?.includes('ETag'));
      const preview = await t.client.as(device, 'GET', `${API}/profiles/${open.id}/preview`);
      assert.deepEqual(res.body, preview.body, 'the public card is the public profile\'s card');
      assert.equal(res.headers.get('etag'), preview.headers.get('etag'));
      assert.deepEqual(res.body.fields.map((f: any) => f.id).includes(phone.id), true);
      assert.ok(!JSON.stringify(res.body).includes('private@example.com'));

      const etag = res.headers.get('etag')!;
      assert.equal((await get(`/public/${device.username}`, { 'if-none-match': etag })).status, 304);
      // The name as typed in another case or width finds the same person.
      assert.equal((await get(`/public/${encodeURIComponent(device.username.toUpperCase())}`)).status, 200);

      const preflight = await fetch(`${t.baseUrl}${API}/public/${device.username}`, {
        method: 'OPTIONS',
        headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'if-none-match' },
      });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
      assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /if-none-match/i);
    });

    it('gives one 404 for an unknown user, an invalid name, and a person with no public profile', async () => {
      const { device, open } = await person();
      const answers = [await get('/public/nobody-has-this-name'), await get('/public/%E2%80%AEevil'), await get(`/public/${'x'.repeat(100)}`)];
      await t.client.as(device, 'PATCH', `${API}/profiles/${open.id}`, { body: { public: false }, headers: { 'if-match': '"1"' } });
      answers.push(await get(`/public/${device.username}`), await get(`/public/${device.username}/vcard`));
      for (const res of answers) {
        assert.equal(res.status, 404, JSON.stringify(res.body));
        assert.equal(res.body.code, 'profile_not_found');
        assert.equal(res.body.detail, 'nobody with this username shows a public card');
      }
    });

    it('serves the card as vCard 3.0 for address books by default, and 4.0 on request, as an attachment with a stable UID', async () => {
      const { device, open, phone } = await person();
      const v3 = await get(`/public/${device.username}/vcard`);
      assert.equal(v3.status, 200);
      assert.equal(v3.headers.get('content-type'), 'text/vcard; charset=utf-8');
      // RFC 6266: an ASCII name needs no filename*; content-disposition writes it as a token.
      assert.equal(v3.headers.get('content-disposition'), `attachment; filename=${device.username}.vcf`);
      assert.equal(v3.headers.get('cache-control'), 'public, max-age=60');
      assert.equal(v3.headers.get('access-control-allow-origin'), '*');
      const v4 = await get(`/public/${device.username}/vcard?version=4.0`);
      assert.equal(v4.status, 200);
      assert.notEqual(v3.headers.get('etag'), v4.headers.get('etag'), 'each version is its own representation');
      assert.equal((await get(`/public/${device.username}/vcard?version=4.0`, { 'if-none-match': v4.headers.get('etag')! })).status, 304);
      assert.equal((await get(`/public/${device.username}/vcard`, { 'if-none-match': v3.headers.get('etag')! })).status, 304);
      expectProblem(await get(`/public/${device.username}/vcard?version=2.1`), 400, 'validation_failed');

      const card4 = new ICAL.Component(ICAL.parse(v4.body) as unknown[]);
      const card3 = new ICAL.Component(ICAL.parse(v3.body) as unknown[]);
      assert.equal(card4.getFirstPropertyValue('version'), '4.0');
      assert.equal(card3.getFirstPropertyValue('version'), '3.0');
      for (const card of [card4, card3]) {
        assert.equal(card.getFirstPropertyValue('fn'), 'José Müller');
        assert.deepEqual(card.getFirstPropertyValue('n'), ['Müller', 'José', '', '', '']);
        assert.equal(card.getAllProperties('tel').length, 1);
        assert.equal(card.getAllProperties('email').length, 0, 'the private profile\'s email is not in the public vCard');
      }
      assert.equal(String(card4.getFirstPropertyValue('uid')), String(card3.getFirstPropertyValue('uid')));

      // A change to the card moves REV and the ETag; the UID stays, so a re-import updates the contact.
      t.clock.advance(60_000);
      await t.client.as(device, 'PATCH', `${API}/me/fields/${phone.id}`, { body: { value: '+49 30 22730' }, headers: { 'if-match': '"1"' } });
      const later = await get(`/public/${device.username}/vcard?version=4.0`);
      const card4b = new ICAL.Component(ICAL.parse(later.body) as unknown[]);
      assert.equal(String(card4b.getFirstPropertyValue('uid')), String(card4.getFirstPropertyValue('uid')));
      assert.notEqual(String(card4b.getFirstPropertyValue('rev')), String(card4.getFirstPropertyValue('rev')));
      assert.notEqual(later.headers.get('etag'), v4.headers.get('etag'));
      assert.ok(open.id);
    });
  });
}
