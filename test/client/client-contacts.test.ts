// The client's contact methods against the real server, and the helper that keeps every
// contact card current from the event stream: Alice shares a link, Bob redeems it, Alice edits
// her phone, and Bob's local copy changes without him asking.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientFor, eventually, signUp } from '../../client/test/harness.js';
import { contactCards } from '../../client/src/index.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';

for (const backend of backends) {
  describe(`client: contacts, share links and live cards [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend);
    });
    after(async () => {
      await t.close();
    });

    it('shares, subscribes, annotates, and keeps the card current from signals', async () => {
      const alice = clientFor(t);
      const bob = clientFor(t);
      const aliceName = uniqueName('alice');
      await signUp(alice, aliceName);
      await signUp(bob, uniqueName('bob'));
      const phone = await alice.client.request('POST', '/me/fields', { body: { type: 'phone', value: '+49 30 22732152' } });
      const work = await alice.client.profiles.create({ name: 'Work' });
      await alice.client.profiles.expose(work.id, phone.id);
      const link = await alice.client.shareLinks.create({ profile_id: work.id, auto_approve: true, max_uses: 1 });
      const resolved = await bob.client.shareLinks.resolve(link.token);
      assert.equal(resolved.owner.username, aliceName);
      assert.ok(!('profile_name' in resolved), 'the link never names the profile');
      const contact = await bob.client.shareLinks.redeem(link.token);
      assert.equal(contact.status, 'active');

      const cards = contactCards(bob.client);
      const changes: Array<string | undefined> = [];
      const controller = new AbortController();
      const following = cards.follow({ signal: controller.signal, onChange: (id) => void changes.push(id) });
      await eventually(() => changes.length >= 1, 3000, 'the first sync');
      assert.equal(cards.cards.get(contact.id)?.fields[0]?.value, '+493022732152');

      await alice.client.request('PATCH', '/me/fields/{id}', { params: { id: phone.id }, body: { value: '+49 30 22730' }, ifMatch: phone.version });
      await eventually(() => cards.cards.get(contact.id)?.fields[0]?.value === '+493022730', 5000, 'the new number');
      assert.ok(changes.includes(contact.id));

      await bob.client.contacts.annotation.put(contact.id, { note: 'From the conference', labels: ['Work'] });
      assert.deepEqual(await bob.client.contacts.labels(), [{ label: 'Work', count: 1 }]);
      assert.deepEqual((await bob.client.contacts.annotation.put(contact.id, { labels: ['Work', 'Berlin'] })).labels, ['Work', 'Berlin'], 'If-Match from the last read');
      assert.match(await bob.client.contacts.allVcards(), /^BEGIN:VCARD\r\nVERSION:3\.0\r\n/);

      // Revoked: the card goes from the local copies too.
      const subscription = await alice.client.subscriptions.get(contact.id);
      await alice.client.subscriptions.revoke(subscription.id, { block: true });
      await eventually(() => !cards.cards.has(contact.id), 5000, 'the card to go');
      controller.abort();
      await following;
      const blocks = [];
      for await (const b of alice.client.subscriptions.blocks()) blocks.push(b);
      assert.equal(blocks.length, 1);
    });
  });
}
