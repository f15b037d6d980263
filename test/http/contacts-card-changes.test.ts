// PRODUCT §4 and the signal catalogue (contact.card.changed): a live card update says which
// details changed. The card a subscriber pulls after the signal carries `changed`, the kinds of
// detail (field types, display_name) that differ from the card they saw before: after an edit, an
// exposure, a display-name change, an approval (their first card: nothing) and a move (the old
// profile's card against the new one's). Never values, never a kind neither card showed them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import type { Device } from '../helpers/client.js';
import { API, startSocialApp } from '../helpers/social.js';
import type { Social } from '../helpers/social.js';

for (const backend of backends) {
  describe(`contacts: what changed in a card [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    let s: Social;
    before(async () => ({ t, s } = await startSocialApp(backend)));
    after(() => t.close());

    /** Alice: a phone on Work, an email on Family, a postal address on no profile. */
    async function alice() {
      const owner = await s.person('alice');
      const phone = await s.field(owner, { type: 'phone', value: '+49 30 22732152', label: 'work' });
      const email = await s.field(owner, { type: 'email', value: 'alice@example.com' });
      const address = await s.field(owner, { type: 'postal_address', country: 'DE', value: { street_lines: ['Unter den Linden 1'], locality: 'Berlin', postal_code: '10117' } });
      const work = await s.profile(owner, 'Work');
      const family = await s.profile(owner, 'Family');
      await s.expose(owner, work.id, phone.id);
      await s.expose(owner, family.id, email.id);
      return { owner, phone, email, address, work, family };
    }
    const cardOf = async (device: Device, id: string) => {
      const res = await s.get(device, `/contacts/${id}/card`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res;
    };
    const cardSignals = async (device: Device) => (await s.signals(device)).filter(([k]) => k === 'contact.card.changed').length;

    it('says which kinds of detail changed, from the subscriber\'s first card through edits and the display name', async () => {
      const { owner, phone, address, work } = await alice();
      const bob = await s.person('bob');
      const id = await s.connect(bob, owner, work.id);
      assert.deepEqual((await cardOf(bob, id)).body.changed, [], 'a first card: nothing Bob saw before has changed');

      t.clock.advance(1000);
      const edited = await t.client.as(owner, 'PATCH', `${API}/me/fields/${phone.id}`, { body: { value: '+49 30 22730' }, headers: { 'if-match': '"1"' } });
      assert.equal(edited.status, 200, JSON.stringify(edited.body));
      const afterEdit = await cardOf(bob, id);
      assert.deepEqual(afterEdit.body.changed, ['phone'], 'a new phone number');
      assert.equal(Date.parse(afterEdit.body.updated_at), t.clock.now());

      // A field no profile of Bob's shows changes nothing for him: no signal, the same card.
      const signals = await cardSignals(bob);
      t.clock.advance(1000);
      await t.client.as(owner, 'PATCH', `${API}/me/fields/${address.id}`, { body: { value: { street_lines: ['Unter den Linden 2'], locality: 'Berlin', postal_code: '10117' } }, headers: { 'if-match': '"1"' } });
      assert.equal(await cardSignals(bob), signals);
      const unchanged = await cardOf(bob, id);
      assert.equal(unchanged.headers.get('etag'), afterEdit.headers.get('etag'));
      assert.deepEqual(unchanged.body.changed, ['phone']);

      t.clock.advance(1000);
      await t.client.as(owner, 'PATCH', `${API}/me`, { body: { display_name: 'Alice A.' }, headers: { 'if-match': '"1"' } });
      assert.deepEqual((await cardOf(bob, id)).body.changed, ['display_name']);

      // An exposure: the address now shows on Work, so it is Bob's to know it is new; then its label.
      t.clock.advance(1000);
      await s.expose(owner, work.id, address.id);
      assert.deepEqual((await cardOf(bob, id)).body.changed, ['postal_address']);
      t.clock.advance(1000);
      await s.expose(owner, work.id, phone.id, { label: 'office' });
      assert.deepEqual((await cardOf(bob, id)).body.changed, ['phone']);
      // A new order changes no kind, though the card changed.
      t.clock.advance(1000);
      await s.expose(owner, work.id, address.id, { position: 0 });
      const reordered = await cardOf(bob, id);
      assert.deepEqual(reordered.body.changed, []);
      assert.equal(Date.parse(reordered.body.updated_at), t.clock.now());
      // The owner's preview says the same: it is one card.
      assert.deepEqual((await s.get(owner, `/profiles/${work.id}/preview`)).body.changed, []);
    });

    it('a move says what differs between the card Bob saw and the one he sees now, and nothing of fields neither shows', async () => {
      const { owner, work, family } = await alice();
      const bob = await s.person('bob');
      const carol = await s.person('carol');
      const bobId = await s.connect(bob, owner, work.id);
      const carolId = await s.connect(carol, owner, work.id);
      const carolCard = await cardOf(carol, carolId);
      t.clock.advance(1000);
      assert.equal((await s.post(owner, `/subscriptions/${bobId}/move`, { profile_id: family.id })).status, 200);
      const moved = await cardOf(bob, bobId);
      assert.deepEqual(moved.body.fields.map((f: { type: string }) => f.type), ['email']);
      assert.deepEqual(moved.body.changed, ['email', 'phone'], 'the phone went, an email came; the address is on neither card');
      assert.equal(Date.parse(moved.body.updated_at), t.clock.now());
      // The profile's own card (the owner's preview) says its own last change (the email put on it), not Bob's.
      assert.deepEqual((await s.get(owner, `/profiles/${family.id}/preview`)).body.changed, ['email']);
      // Carol, still on Work, sees what she saw.
      assert.deepEqual((await cardOf(carol, carolId)).body, carolCard.body);
      // A later change of Family's card is Bob's like anyone's on Family.
      const nick = await s.field(owner, { type: 'nickname', value: 'Al' });
      t.clock.advance(1000);
      await s.expose(owner, family.id, nick.id);
      assert.deepEqual((await cardOf(bob, bobId)).body.changed, ['nickname']);

      // Deleting Work with move_to Family moves Carol: phone gone, email and nickname new.
      t.clock.advance(1000);
      assert.equal((await t.client.as(owner, 'DELETE', `${API}/profiles/${work.id}?move_to=${family.id}`, { headers: { 'if-match': '"1"' } })).status, 204);
      assert.deepEqual((await cardOf(carol, carolId)).body.changed, ['email', 'nickname', 'phone']);
      assert.deepEqual((await cardOf(bob, bobId)).body.changed, ['nickname'], 'Bob was not moved');
    });

    it('never a value: `changed` holds kinds only, whatever the values are', async () => {
      const { owner, phone, work } = await alice();
      const bob = await s.person('bob');
      const id = await s.connect(bob, owner, work.id);
      t.clock.advance(1000);
      await t.client.as(owner, 'PATCH', `${API}/me/fields/${phone.id}`, { body: { value: '+44 20 7930 4832', label: 'phone' }, headers: { 'if-match': '"1"' } });
      const card = (await cardOf(bob, id)).body;
      assert.deepEqual(card.changed, ['phone']);
      for (const kind of card.changed) assert.match(kind, /^[a-z_]+$/);
      assert.ok(!JSON.stringify(card.changed).includes('4832'));
    });
  });
}
