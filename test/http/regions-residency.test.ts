// PRODUCT §8 and §10, docs/regions.md: what one region holds of a person of the other, shown and
// ended. Each region's export names the other region's people with their region (the follower's
// with the card it sees); an unsubscription drops the follower region's copy of the card; a purge
// tells the other region, which drops its stand-in of the person and every row naming it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.js';
import type { TestApp } from '../helpers/app.js';
import type { Device } from '../helpers/client.js';
import { startRegions } from '../helpers/regions.js';
import type { RegionPair } from '../helpers/regions.js';
import { API, social } from '../helpers/social.js';
import { stepUp } from '../helpers/step-up.js';

const DAY = 86_400_000;

for (const backend of backends) {
  describe(`what each region holds of the other's people [${backend.name}]`, { skip: backend.skip }, () => {
    let r: RegionPair;
    let eu: ReturnType<typeof social>;
    let us: ReturnType<typeof social>;
    before(async () => {
      r = await startRegions(backend);
      eu = social(r.eu);
      us = social(r.us);
    });
    after(() => r.close());

    const exportOf = async (t: TestApp, device: Device) => {
      const res = await t.client.as(device, 'GET', `${API}/account/export`, { headers: { 'vid-step-up': await stepUp(t.client, device) } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body;
    };
    /** Follows `owner` of the other region and has them approve onto `profileId`; the contact's id. */
    const follow = async (from: ReturnType<typeof social>, follower: Device, to: ReturnType<typeof social>, owner: Device, region: string, profileId: string) => {
      const asked = await from.post(follower, '/contacts', { username: `${owner.username}@${region}` });
      assert.equal(asked.status, 201, JSON.stringify(asked.body));
      assert.equal((await to.approve(owner, asked.body.id, profileId)).status, 200);
      await r.settle();
      return asked.body.id as string;
    };
    const rows = (t: TestApp, table: string, column: string, value: string) => (t.store.handle.db as any).selectFrom(table).selectAll().where(column, '=', value).execute();
    const standIn = async (t: TestApp, username: string, region: string) => (await rows(t, 'accounts', 'username_canonical', `${username}@${region}`))[0];

    it('each region\'s export names the other region\'s people with their region, and the card a follower sees', async () => {
      const alice = await eu.person('alice');
      const phone = await eu.field(alice, { type: 'phone', value: '+49 30 22732152' });
      const work = await eu.profile(alice, 'Work');
      await eu.expose(alice, work.id, phone.id);
      const bob = await us.person('bob');
      const email = await us.field(bob, { type: 'email', value: 'bob@example.com' });
      const home = await us.profile(bob, 'Home');
      await us.expose(bob, home.id, email.id);
      const bobToAlice = await follow(us, bob, eu, alice, 'eu', work.id);
      const aliceToBob = await follow(eu, alice, us, bob, 'us', home.id);
      // Carol in the US asks too; Alice refuses and blocks her.
      const carol = await us.person('carol');
      const carolAsked = await us.post(carol, '/contacts', { username: `${alice.username}@eu` });
      assert.equal((await eu.post(alice, `/subscriptions/${carolAsked.body.id}/deny`, { block: true })).status, 200);

      const inEu = await exportOf(r.eu, alice);
      const subscriber = inEu.subscriptions.find((x: any) => x.id === bobToAlice);
      assert.deepEqual(subscriber.subscriber, { username: bob.username, display_name: null, region: 'us' });
      assert.deepEqual(inEu.blocks.map((b: any) => [b.username, b.region]), [[carol.username, 'us']]);
      const seenInEu = inEu.contacts.find((x: any) => x.contact.id === aliceToBob);
      assert.deepEqual(seenInEu.contact.owner, { username: bob.username, display_name: null, region: 'us' });
      assert.deepEqual(seenInEu.card.owner, { username: bob.username, display_name: null, region: 'us' });
      assert.deepEqual(seenInEu.card.fields.map((f: any) => f.value), ['bob@example.com']);

      const inUs = await exportOf(r.us, bob);
      assert.deepEqual(inUs.subscriptions.find((x: any) => x.id === aliceToBob).subscriber, { username: alice.username, display_name: null, region: 'eu' });
      const seenInUs = inUs.contacts.find((x: any) => x.contact.id === bobToAlice);
      assert.deepEqual(seenInUs.contact.owner, { username: alice.username, display_name: null, region: 'eu' });
      assert.deepEqual(seenInUs.card.owner, { username: alice.username, display_name: null, region: 'eu' });
      assert.deepEqual(seenInUs.card.fields.map((f: any) => f.value), ['+493022732152']);
      // Carol's pending request (silently refused) names Alice of the EU, with no card.
      const carolSees = (await exportOf(r.us, carol)).contacts[0];
      assert.deepEqual([carolSees.contact.owner.region, carolSees.contact.status, carolSees.card], ['eu', 'pending', null]);
    });

    it('an unsubscription drops the copy of the card; a purge in one region removes the stand-in and its rows in the other', async () => {
      const dave = await eu.person('dave');
      const phone = await eu.field(dave, { type: 'phone', value: '+49 30 22732152' });
      const work = await eu.profile(dave, 'Work');
      await eu.expose(dave, work.id, phone.id);

      // The follower's region keeps one copy of the card while someone there receives it.
      const erin = await us.person('erin');
      const erinToDave = await follow(us, erin, eu, dave, 'eu', work.id);
      assert.equal((await rows(r.us, 'profiles', 'id', work.id)).length, 1);
      assert.equal((await r.us.client.as(erin, 'DELETE', `${API}/contacts/${erinToDave}`)).status, 204);
      await r.settle();
      assert.equal((await eu.get(dave, `/subscriptions/${erinToDave}`)).body.status, 'ended');
      assert.deepEqual(await rows(r.us, 'profiles', 'id', work.id), [], 'unsubscribed: the copy goes');

      // Frank and Harry (US) follow Dave (EU), Harry with a note; Dave follows Grace (US).
      const frank = await us.person('frank');
      const frankToDave = await follow(us, frank, eu, dave, 'eu', work.id);
      const harry = await us.person('harry');
      const harryToDave = await follow(us, harry, eu, dave, 'eu', work.id);
      assert.equal((await r.us.client.as(harry, 'PUT', `${API}/contacts/${harryToDave}/annotation`, { body: { note: 'met in Berlin', labels: [] } })).status, 201);
      const grace = await us.person('grace');
      const graceHome = await us.profile(grace, 'Home');
      const daveToGrace = await follow(eu, dave, us, grace, 'us', graceHome.id);
      const daveInUs = await standIn(r.us, dave.username, 'eu');
      assert.ok(daveInUs, 'the US holds a stand-in of Dave');

      // Dave and Frank leave. After the grace the US purges Frank first: the EU hears it and drops
      // its stand-in of him with the subscription that named him (Dave's People list).
      for (const [t, device] of [[r.eu, dave], [r.us, frank]] as const) {
        const gone = await t.client.as(device, 'DELETE', `${API}/account`, { headers: { 'vid-step-up': await stepUp(t.client, device) } });
        assert.equal(gone.status, 202, JSON.stringify(gone.body));
      }
      await r.settle();
      r.eu.clock.advance(31 * DAY);
      r.us.clock.advance(31 * DAY);
      assert.ok(await standIn(r.eu, frank.username, 'us'), 'the EU holds a stand-in of Frank');
      assert.ok((await r.us.services.purge.run(r.us.clock.now())).purged >= 1);
      await r.settle();
      assert.equal(await standIn(r.eu, frank.username, 'us'), undefined);
      assert.deepEqual(await rows(r.eu, 'subscriptions', 'id', frankToDave), []);

      // Then the EU purges Dave: the US holds nothing of him any more, as owner or as follower.
      assert.ok((await r.eu.services.purge.run(r.eu.clock.now())).purged >= 1);
      await r.settle();
      assert.equal(await standIn(r.us, dave.username, 'eu'), undefined);
      assert.deepEqual(await rows(r.us, 'profiles', 'account_id', daveInUs.id), [], 'no copy of his card');
      assert.deepEqual(await rows(r.us, 'subscriptions', 'owner_id', daveInUs.id), []);
      // Unlike a purge within one region, Harry's contact goes whole, his own note on it too.
      assert.deepEqual(await rows(r.us, 'annotations', 'subscription_id', harryToDave), []);
      assert.deepEqual(await rows(r.us, 'subscriptions', 'id', daveToGrace), [], 'Grace\'s follower is gone');
      for (const t of [r.eu, r.us]) assert.deepEqual(await (t.store.handle.db as any).selectFrom('region_outbox').selectAll().execute(), [], 'nothing waits to be told');
    });
  });
}
