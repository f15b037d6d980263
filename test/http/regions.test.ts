// PRODUCT §10, decision 352: two deployments (EU, US) on one machine, each over its own database,
// signing their requests to each other. A person in the US follows one in the EU exactly as at
// home: the request reaches the owner, who approves, moves, edits and revokes; the follower's
// region keeps one copy of the card it may see, and the card-change log, feed and vCard follow.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.js';
import { bookPaths, dav, davLogin, readMultistatus, syncBody } from '../helpers/address-book.js';
import { expectProblem } from '../helpers/problem.js';
import { logInAs, stepUp } from '../helpers/step-up.js';
import { startRegions } from '../helpers/regions.js';
import type { RegionPair } from '../helpers/regions.js';
import { social } from '../helpers/social.js';

for (const backend of backends) {
  describe(`following across regions [${backend.name}]`, { skip: backend.skip }, () => {
    let r: RegionPair;
    let eu: ReturnType<typeof social>;
    let us: ReturnType<typeof social>;
    before(async () => {
      r = await startRegions(backend);
      eu = social(r.eu);
      us = social(r.us);
    });
    after(() => r.close());

    it('follows alice@eu from the US: pending, approved, edited, moved and revoked, each told to the US', async () => {
      const alice = await eu.person('alice');
      const phone = await eu.field(alice, { type: 'phone', value: '+49 30 22732152', label: 'work' });
      const email = await eu.field(alice, { type: 'email', value: 'alice@example.com' });
      const work = await eu.profile(alice, 'Work');
      const family = await eu.profile(alice, 'Family');
      await eu.expose(alice, work.id, phone.id);
      await eu.expose(alice, family.id, email.id);
      const bob = await us.person('bob');

      const asked = await us.post(bob, '/contacts', { username: `${alice.username}@eu`, message: 'Hi from Boston' });
      assert.equal(asked.status, 201, JSON.stringify(asked.body));
      assert.deepEqual(asked.body.owner, { username: alice.username, display_name: null, region: 'eu' });
      assert.equal(asked.body.status, 'pending');
      const waiting = await eu.get(alice, '/subscriptions?status=pending');
      assert.deepEqual(waiting.body.data.map((x: any) => [x.id, x.subscriber.username, x.subscriber.region, x.message]), [[asked.body.id, bob.username, 'us', 'Hi from Boston']]);

      assert.equal((await eu.approve(alice, asked.body.id, work.id)).status, 200);
      await r.settle();
      const card = await us.get(bob, `/contacts/${asked.body.id}/card`);
      assert.equal(card.status, 200, JSON.stringify(card.body));
      assert.deepEqual(card.body.owner, { username: alice.username, display_name: null, region: 'eu' });
      assert.deepEqual(card.body.fields.map((f: any) => f.type), ['phone']);

      const edited = await r.eu.client.as(alice, 'PATCH', `/api/v1/me/fields/${phone.id}`, { body: { value: '+49 30 22732153' }, headers: { 'if-match': `"${phone.version}"` } });
      assert.equal(edited.status, 200, JSON.stringify(edited.body));
      await r.settle();
      const after1 = await us.get(bob, `/contacts/${asked.body.id}/card`);
      assert.equal(after1.body.fields[0].value, '+493022732153');
      const vcard = await us.get(bob, `/contacts/${asked.body.id}/vcard`);
      assert.equal(vcard.status, 200);
      assert.match(String(vcard.body), /TEL[^\n]*\+493022732153/);

      assert.equal((await eu.post(alice, `/subscriptions/${asked.body.id}/move`, { profile_id: family.id })).status, 200);
      await r.settle();
      const moved = await us.get(bob, `/contacts/${asked.body.id}/card`);
      assert.deepEqual(moved.body.fields.map((f: any) => f.type), ['email']);

      assert.equal((await eu.post(alice, `/subscriptions/${asked.body.id}/revoke`, {})).status, 200);
      await r.settle();
      expectProblem(await us.get(bob, `/contacts/${asked.body.id}/card`), 403, 'contact_not_active');
      assert.equal((await us.get(bob, `/contacts/${asked.body.id}`)).body.status, 'revoked');
      const copies = await r.us.store.handle.db.selectFrom('profiles' as any).select('id').where('id' as any, 'in', [work.id, family.id]).execute();
      assert.deepEqual(copies, [], 'a revoke removes the copy');
    });

    /** Alice in the EU with a phone on "Work", and a follower in the US approved onto it. */
    async function followed() {
      const alice = await eu.person('alice');
      const phone = await eu.field(alice, { type: 'phone', value: '+49 30 22732152' });
      const work = await eu.profile(alice, 'Work');
      await eu.expose(alice, work.id, phone.id);
      const bob = await us.person('bob');
      const contact = (await us.post(bob, '/contacts', { username: `${alice.username}@eu` })).body;
      assert.equal((await eu.approve(alice, contact.id, work.id)).status, 200);
      await r.settle();
      return { alice, bob, work, contactId: contact.id as string };
    }

    it('an unsubscription in the US ends the subscription in the EU; asking again makes a new request', async () => {
      const { alice, bob, contactId } = await followed();
      assert.equal((await r.us.client.as(bob, 'DELETE', `/api/v1/contacts/${contactId}`)).status, 204);
      await r.settle();
      assert.equal((await eu.get(alice, `/subscriptions/${contactId}`)).body.status, 'ended');
      const again = await us.post(bob, '/contacts', { username: `${alice.username}@eu` });
      assert.equal(again.status, 201, JSON.stringify(again.body));
      assert.notEqual(again.body.id, contactId);
      assert.equal((await eu.get(alice, `/subscriptions/${again.body.id}`)).body.status, 'pending');
    });

    it('a request asked again while one waits answers the same contact; a denial stays silent across regions', async () => {
      const alice = await eu.person('alice');
      const bob = await us.person('bob');
      const first = (await us.post(bob, '/contacts', { username: `${alice.username}@eu` })).body;
      expectProblem(await us.post(bob, '/contacts', { username: `${alice.username}@eu` }), 409, 'already_subscribed');
      assert.equal((await eu.post(alice, `/subscriptions/${first.id}/deny`, { block: true })).status, 200);
      await r.settle();
      const seen = await us.get(bob, `/contacts/${first.id}`);
      assert.equal(seen.body.status, 'pending', 'a denial reads as no answer yet');
      assert.equal(seen.body.version, first.version);
      const blocks = await eu.get(alice, '/blocks');
      assert.deepEqual(blocks.body.data.map((b: any) => [b.username, b.region]), [[bob.username, 'us']]);
    });

    it('the owner deleted, restored and purged in the EU: the US contact goes unavailable, comes back, then goes with its copy', async () => {
      const { alice, bob, work, contactId } = await followed();
      const withStepUp = async () => ({ 'vid-step-up': await stepUp(r.eu.client, alice) });
      assert.equal((await r.eu.client.as(alice, 'DELETE', '/api/v1/account', { headers: await withStepUp() })).status, 202);
      await r.settle();
      assert.equal((await us.get(bob, `/contacts/${contactId}`)).body.status, 'unavailable');
      expectProblem(await us.get(bob, `/contacts/${contactId}/card`), 410, 'account_deleted');
      assert.equal((await r.eu.client.as(alice, 'POST', '/api/v1/account/undelete')).status, 200);
      await r.settle();
      assert.equal((await us.get(bob, `/contacts/${contactId}`)).body.status, 'active');
      assert.equal((await us.get(bob, `/contacts/${contactId}/card`)).status, 200);

      assert.equal((await r.eu.client.as(alice, 'DELETE', '/api/v1/account', { headers: await withStepUp() })).status, 202);
      // Both regions' clocks move on together (signatures hold only between clocks that agree).
      r.eu.clock.advance(31 * 86_400_000);
      r.us.clock.advance(31 * 86_400_000);
      assert.ok((await r.eu.services.purge.run(r.eu.clock.now())).purged >= 1);
      await r.settle();
      const bobAgain = await logInAs(r.us.client, bob);
      expectProblem(await us.get(bobAgain, `/contacts/${contactId}`), 404, 'contact_not_found');
      const copies = await r.us.store.handle.db.selectFrom('profiles' as any).select('id').where('id' as any, '=', work.id).execute();
      assert.deepEqual(copies, [], 'the purge removes the copy');
      const standIns = await r.us.store.handle.db.selectFrom('accounts' as any).select('id').where('username_canonical' as any, '=', `${alice.username}@eu`).execute();
      assert.deepEqual(standIns, [], 'and the stand-in');
    });

    it('a region unheard for more than ten minutes: its contacts say since when, and stop saying so when it is back', async () => {
      const { bob, contactId } = await followed();
      assert.equal((await us.get(bob, `/contacts/${contactId}`)).body.not_current_since, undefined);
      const heard = r.us.clock.now();
      // Eleven minutes in which the EU sends nothing (no sweep runs on a test's clock).
      r.us.clock.advance(11 * 60_000);
      r.eu.clock.advance(11 * 60_000);
      const bobLater = await logInAs(r.us.client, bob);
      const silent = await us.get(bobLater, `/contacts/${contactId}`);
      assert.equal(silent.body.not_current_since, new Date(heard).toISOString());
      // The EU's heartbeat (it said nothing for more than a minute) reaches the US.
      await r.eu.services.regions.flush();
      assert.equal((await us.get(bobLater, `/contacts/${contactId}`)).body.not_current_since, undefined);
    });

    it('an edit in the EU reaches the US follower live (the signal feed) and in the address book (sync-collection), with alice@eu named', async () => {
      const { alice, bob, contactId } = await followed();
      const login = await davLogin(r.us, bob);
      const paths = bookPaths(login.accountId);
      const sync = async (token: string) => {
        const res = await dav(r.us.baseUrl, login, 'REPORT', paths.book, { body: syncBody(token), depth: '1' });
        assert.equal(res.status, 207, res.text);
        return { read: readMultistatus(res.text), text: res.text };
      };
      const first = await sync('');
      assert.equal(first.read.responses.length, 1);
      assert.match(first.text, new RegExp(`VID: ${alice.username}@eu`));
      const signalsBefore = (await us.signals(bob)).length;

      const phone = (await eu.get(alice, '/me/fields')).body.data[0];
      r.eu.clock.advance(1000);
      r.us.clock.advance(1000);
      const edited = await r.eu.client.as(alice, 'PATCH', `/api/v1/me/fields/${phone.id}`, { body: { value: '+49 30 22732199' }, headers: { 'if-match': `"${phone.version}"` } });
      assert.equal(edited.status, 200, JSON.stringify(edited.body));
      await r.settle();
      assert.deepEqual((await us.signals(bob)).slice(signalsBefore), [['contact.card.changed', `/contacts/${contactId}/card`]]);
      const delta = await sync(first.read.syncToken!);
      assert.equal(delta.read.responses.length, 1, 'the card changed once');
      assert.match(delta.text, /\+493022732199/);
    });

    it('a profile deleted with move_to moves every follower in the US at once, each card sent once', async () => {
      const alice = await eu.person('alice');
      const phone = await eu.field(alice, { type: 'phone', value: '+49 30 22732152' });
      const email = await eu.field(alice, { type: 'email', value: 'alice@example.com' });
      const work = await eu.profile(alice, 'Work');
      const family = await eu.profile(alice, 'Family');
      await eu.expose(alice, work.id, phone.id);
      await eu.expose(alice, family.id, email.id);
      const followers = [await us.person('bob'), await us.person('carol'), await us.person('dave')];
      const contacts: string[] = [];
      for (const follower of followers) {
        const contact = (await us.post(follower, '/contacts', { username: `${alice.username}@eu` })).body;
        assert.equal((await eu.approve(alice, contact.id, family.id)).status, 200);
        contacts.push(contact.id);
      }
      await r.settle();
      const sentBefore = r.eu.services.regions.stats();
      const version = (await eu.get(alice, `/profiles/${family.id}`)).body.version;
      assert.equal((await r.eu.client.as(alice, 'DELETE', `/api/v1/profiles/${family.id}?move_to=${work.id}`, { headers: { 'if-match': `"${version}"` } })).status, 204);
      await r.settle();
      const sent = r.eu.services.regions.stats();
      assert.equal(sent.requests - sentBefore.requests, 1, 'one request for the owner-wide change');
      for (const [i, follower] of followers.entries()) {
        const card = await us.get(follower, `/contacts/${contacts[i]}/card`);
        assert.equal(card.status, 200, JSON.stringify(card.body));
        assert.deepEqual(card.body.fields.map((f: any) => f.type), ['phone']);
      }
      const copies = await r.us.store.handle.db.selectFrom('profiles' as any).select('id').where('id' as any, 'in', [work.id, family.id]).execute();
      assert.deepEqual(copies.map((row: any) => row.id), [work.id], 'one copy, of the profile they see now');
    });

    it('refuses an unknown region and an unknown person there', async () => {
      const bob = await us.person('bob');
      expectProblem(await us.post(bob, '/contacts', { username: 'alice@mars' }), 404, 'unknown_region');
      expectProblem(await us.post(bob, '/contacts', { username: 'nobody-is-called-this@eu' }), 404, 'account_not_found');
    });
  });
}
