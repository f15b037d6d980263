// The client's profile methods and conditional card pulls against the real server: create,
// expose, preview with If-None-Match (304 hands back the copy held), the public card and vCard.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientFor, signUp } from '../../client/test/harness.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';

for (const backend of backends) {
  describe(`client: profiles and cards [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend);
    });
    after(async () => {
      await t.close();
    });

    it('creates a profile, shows a field in it, and keeps its card current with If-None-Match', async () => {
      const h = clientFor(t);
      const username = uniqueName('cprof');
      await signUp(h, username);
      const { client } = h;
      const field = await client.request('POST', '/me/fields', { body: { type: 'nickname', value: 'Ada' } });
      const profile = await client.profiles.create({ name: 'Friends', public: true });
      assert.equal(profile.field_count, 0);
      const exposure = await client.profiles.expose(profile.id, field.id, { label: 'Called' });
      assert.deepEqual(exposure, { field_id: field.id, label: 'Called', position: 0, schema_version: 1 });
      assert.deepEqual((await client.profiles.exposures(profile.id)).map((e) => e.field_id), [field.id]);

      const first = await client.cards.get(`/profiles/${profile.id}/preview`);
      assert.equal(first.changed, true);
      assert.deepEqual(first.card.fields.map((f) => [f.id, f.label]), [[field.id, 'Called']]);
      const again = await client.cards.get(`/profiles/${profile.id}/preview`, first);
      assert.equal(again.changed, false);
      assert.equal(again.card, first.card, 'a 304 hands back the copy held');
      assert.equal(h.calls('GET', `/profiles/${profile.id}/preview`).at(-1)!.status, 304);

      await client.request('PATCH', '/me/fields/{id}', { params: { id: field.id }, body: { value: 'Countess' }, ifMatch: field.version });
      const changed = await client.cards.get(`/profiles/${profile.id}/preview`, first);
      assert.equal(changed.changed, true);
      assert.equal(changed.card.fields[0]!.value, 'Countess');

      const renamed = await client.profiles.update(profile.id, { name: 'Close friends' });
      assert.equal(renamed.name, 'Close friends');
      assert.deepEqual(await client.public.card(username), changed.card);
      const vcard = await fetch(client.public.vcardUrl(username).replace('http://localhost:8080', t.baseUrl));
      assert.equal(vcard.status, 200);
      assert.match(await vcard.text(), /^BEGIN:VCARD\r\nVERSION:3\.0\r\n/);

      await client.profiles.hide(profile.id, field.id);
      assert.equal((await client.profiles.get(profile.id)).field_count, 0);
      await client.profiles.remove(profile.id);
      const left = [];
      for await (const p of client.profiles.list()) left.push(p);
      assert.deepEqual(left, []);
    });
  });
}
