// PRODUCT §10, decision 352: two deployments (EU, US) on one machine, each over its own database,
// signing their requests to each other. A person in the US follows one in the EU exactly as at
// home: the request reaches the owner, who approves, moves, edits and revokes; the follower's
// region keeps one copy of the card it may see, and the card-change log, feed and vCard follow.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.js';
import { expectProblem } from '../helpers/problem.js';
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

    it('refuses an unknown region and an unknown person there', async () => {
      const bob = await us.person('bob');
      expectProblem(await us.post(bob, '/contacts', { username: 'alice@mars' }), 404, 'unknown_region');
      expectProblem(await us.post(bob, '/contacts', { username: 'nobody-is-called-this@eu' }), 404, 'account_not_found');
    });
  });
}
