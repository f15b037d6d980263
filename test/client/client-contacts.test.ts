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
      let state: string | undefined;
      const following = cards.follow({ signal: controller.signal, onChange: (id) => void changes.push(id), onStateChange: (next) => (state = next) });
      await eventually(() => changes.length >= 1, 3000, 'the first sync');
      assert.equal(cards.cards.get(contact.id)?.fields[0]?.value, '+493022732152');
      // Live, and the catch-up check made once the stream has its position is done: the change
      // below then reaches Bob by its signal.
      await eventually(() => state === 'streaming' && bob.calls('GET', `/contacts/${contact.id}/card`).filter((call) => call.status).length >= 2, 3000, 'the stream to be live');

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

    it('a change made while the stream is still connecting is not lost (the list is checked once the stream has a position)', async () => {
      const alice = clientFor(t);
      const bob = clientFor(t);
      await signUp(alice, uniqueName('alice'));
      await signUp(bob, uniqueName('bob'));
      const phone = await alice.client.fields.create({ type: 'phone', value: '+49 30 22732152' });
      const home = await alice.client.profiles.create({ name: 'Home' });
      await alice.client.profiles.expose(home.id, phone.id);
      const contact = await bob.client.shareLinks.redeem((await alice.client.shareLinks.create({ profile_id: home.id, auto_approve: true })).token);

      // Bob's stream is held back until Alice's change is made: its signal comes before the stream's start.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      bob.intercept(async (request) => {
        if (request.path.startsWith('/events/stream')) await held;
        return undefined;
      });
      const cards = contactCards(bob.client);
      const controller = new AbortController();
      const changes: Array<string | undefined> = [];
      const following = cards.follow({ signal: controller.signal, onChange: (id) => void changes.push(id) });
      await eventually(() => changes.length >= 1, 3000, 'the first sync');
      assert.equal(cards.cards.get(contact.id)?.fields[0]?.value, '+493022732152');
      await alice.client.fields.update(phone.id, { value: '+49 30 22730' });
      release();
      await eventually(() => cards.cards.get(contact.id)?.fields[0]?.value === '+493022730', 5000, 'the change made before the stream opened');
      assert.deepEqual(changes, [undefined, undefined], 'told once for the first sync and once for the catch-up');
      controller.abort();
      await following;
    });
  });
}
