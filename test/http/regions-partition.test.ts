// PRODUCT §10, decision 352: the regions lose each other for a while. The network between them is
// cut (a TCP relay in front of each, reset), while alice in the EU edits her card, moves one US
// follower and revokes another, and a third unsubscribes in the US. Each region goes on serving
// its own people and keeps what the other must hear in its outbox, backing off; once the link is
// back, one settle brings both sides to exactly where they would be had it never gone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import type { Device } from '../helpers/client.js';
import { expectProblem } from '../helpers/problem.js';
import { startRegions } from '../helpers/regions.js';
import type { RegionPair } from '../helpers/regions.js';
import { social } from '../helpers/social.js';

/** Subjects waiting in a region's outbox for the other. */
async function waiting(t: TestApp): Promise<string[]> {
  const db = t.store.handle.db as unknown as Kysely<any>;
  const rows = await db.selectFrom('region_outbox').select('subject').orderBy('id').execute();
  return rows.map((row) => row.subject as string);
}

/** An account's id in a region: its own person's, or the stand-in it keeps for a person of `of`. */
async function idOf(t: TestApp, username: string, of?: string): Promise<string> {
  const db = t.store.handle.db as unknown as Kysely<any>;
  const canonical = of ? `${username.toLowerCase()}@${of}` : username.toLowerCase();
  const row = await db.selectFrom('accounts').select('id').where('username_canonical', '=', canonical).executeTakeFirstOrThrow();
  return row.id as string;
}

/** The ids of the card copies a region holds of one account (a stand-in's profiles). */
async function copiesOf(t: TestApp, username: string, region: string): Promise<string[]> {
  const db = t.store.handle.db as unknown as Kysely<any>;
  const rows = await db
    .selectFrom('profiles')
    .innerJoin('accounts', 'accounts.id', 'profiles.account_id')
    .select('profiles.id')
    .where('accounts.username_canonical', '=', `${username.toLowerCase()}@${region}`)
    .orderBy('profiles.id')
    .execute();
  return rows.map((row) => row.id as string);
}

for (const backend of backends) {
  describe(`regions apart and back [${backend.name}]`, { skip: backend.skip }, () => {
    let r: RegionPair;
    let eu: ReturnType<typeof social>;
    let us: ReturnType<typeof social>;
    before(async () => {
      r = await startRegions(backend, {}, {}, { relays: true });
      eu = social(r.eu);
      us = social(r.us);
    });
    after(() => r.close());

    /** A US person's request to alice@eu, approved onto `profileId`; its id. */
    async function follow(follower: Device, alice: Device, profileId: string): Promise<string> {
      const asked = await us.post(follower, '/contacts', { username: `${alice.username}@eu` });
      assert.equal(asked.status, 201, JSON.stringify(asked.body));
      assert.equal((await eu.approve(alice, asked.body.id, profileId)).status, 200);
      return asked.body.id as string;
    }

    /** A second passes in both regions (their clocks are the tests'), so each step below has a time of its own. */
    function tick(): void {
      r.eu.clock.advance(1000);
      r.us.clock.advance(1000);
    }

    async function editField(alice: Device, field: { id: string }, value: string): Promise<void> {
      tick();
      const current = await eu.get(alice, `/me/fields/${field.id}`);
      assert.equal(current.status, 200, JSON.stringify(current.body));
      const edited = await r.eu.client.as(alice, 'PATCH', `/api/v1/me/fields/${field.id}`, { body: { value }, headers: { 'if-match': `"${current.body.version}"` } });
      assert.equal(edited.status, 200, JSON.stringify(edited.body));
    }

    it('catches up exactly once the US is reachable again: cards, a move, a revoke, an unsubscription', async () => {
      const alice = await eu.person('alice');
      const phone = await eu.field(alice, { type: 'phone', value: '+49 30 22732152', label: 'work' });
      const email = await eu.field(alice, { type: 'email', value: 'alice@example.com' });
      const site = await eu.field(alice, { type: 'url', value: 'https://alice.example' });
      const work = await eu.profile(alice, 'Work');
      const family = await eu.profile(alice, 'Family');
      const friends = await eu.profile(alice, 'Friends');
      await eu.expose(alice, work.id, phone.id);
      await eu.expose(alice, family.id, email.id);
      await eu.expose(alice, friends.id, site.id);
      const bob = await us.person('bob');
      const carol = await us.person('carol');
      const dave = await us.person('dave');
      const bobs = await follow(bob, alice, work.id);
      const carols = await follow(carol, alice, friends.id);
      const daves = await follow(dave, alice, work.id);
      await r.settle();
      assert.deepEqual(await copiesOf(r.us, alice.username, 'eu'), [work.id, friends.id].sort());
      const bobCardBefore = await us.get(bob, `/contacts/${bobs}/card`);
      assert.equal(bobCardBefore.status, 200, JSON.stringify(bobCardBefore.body));
      const seenBefore = await us.signals(bob);

      // The link goes: every connection between the regions is reset, both ways.
      const failures = { eu: r.eu.services.regions.stats().failures, us: r.us.services.regions.stats().failures };
      r.relays!.us.cut();
      r.relays!.eu.cut();

      await editField(alice, phone, '+49 30 22732153');
      await editField(alice, phone, '+49 30 22732154');
      await editField(alice, email, 'alice@family.example');
      tick();
      assert.equal((await eu.post(alice, `/subscriptions/${bobs}/move`, { profile_id: family.id })).status, 200);
      await editField(alice, email, 'alice@home.example');
      await editField(alice, phone, '+49 30 22732155');
      tick();
      assert.equal((await eu.post(alice, `/subscriptions/${carols}/revoke`, {})).status, 200);
      tick();
      const gone = await r.us.client.as(dave, 'DELETE', `/api/v1/contacts/${daves}`);
      assert.ok(gone.status === 200 || gone.status === 204, `${gone.status} ${JSON.stringify(gone.body)}`);

      // Following alice meanwhile: her region does not answer, and nothing is kept.
      const erin = await us.person('erin');
      const unreachable = await us.post(erin, '/contacts', { username: `${alice.username}@eu` });
      expectProblem(unreachable, 503, 'region_unavailable');
      assert.match(unreachable.headers.get('retry-after') ?? '', /^\d+$/);
      assert.deepEqual((await us.get(erin, '/contacts')).body.data, []);

      // Neither side can deliver: a flush backs off instead of throwing, and the outboxes keep it all.
      await r.eu.services.regions.flush();
      await r.us.services.regions.flush();
      assert.ok(r.eu.services.regions.stats().failures > failures.eu, 'the EU counted its failures');
      assert.ok(r.us.services.regions.stats().failures > failures.us, 'the US counted its failures');
      // One subject per change to tell, a card edited three times still one, oldest first.
      assert.deepEqual(await waiting(r.eu), [
        `card:${work.id}`,
        `pair:${alice.accountId}:${await idOf(r.eu, bob.username, 'us')}`,
        `card:${family.id}`,
        `pair:${alice.accountId}:${await idOf(r.eu, carol.username, 'us')}`,
      ]);
      assert.deepEqual(await waiting(r.us), [`pair:${await idOf(r.us, alice.username, 'eu')}:${dave.accountId}`]);
      // Meanwhile the US serves the last card it was told.
      assert.deepEqual((await us.get(bob, `/contacts/${bobs}/card`)).body, bobCardBefore.body);
      assert.equal((await us.get(carol, `/contacts/${carols}`)).body.status, 'active');
      assert.equal((await eu.get(alice, `/subscriptions/${daves}`)).body.status, 'active');

      r.relays!.us.restore();
      r.relays!.eu.restore();
      await r.settle();
      assert.deepEqual(await waiting(r.eu), [], 'the EU told the US everything');
      assert.deepEqual(await waiting(r.us), [], 'the US told the EU everything');

      // bob: on Family, his card exactly alice's preview of it, in his address book too.
      const preview = await eu.get(alice, `/profiles/${family.id}/preview`);
      assert.equal(preview.status, 200, JSON.stringify(preview.body));
      const bobCard = await us.get(bob, `/contacts/${bobs}/card`);
      assert.equal(bobCard.status, 200, JSON.stringify(bobCard.body));
      assert.deepEqual(bobCard.body, { ...preview.body, owner: { ...preview.body.owner, region: 'eu' } });
      const vcard = await us.get(bob, `/contacts/${bobs}/vcard`);
      assert.equal(vcard.status, 200);
      assert.match(String(vcard.body), /EMAIL[^\n]*alice@home\.example/);
      assert.doesNotMatch(String(vcard.body), /TEL/);
      // His feed, read once after the link came back: his contact and its card changed.
      assert.deepEqual((await us.signals(bob)).slice(seenBefore.length), [
        ['contacts.changed', '/contacts'],
        ['contact.card.changed', `/contacts/${bobs}/card`],
      ]);

      // carol: revoked, and the Friends copy nobody in the US sees any more gone; so is Work (bob moved, dave left).
      assert.equal((await us.get(carol, `/contacts/${carols}`)).body.status, 'revoked');
      expectProblem(await us.get(carol, `/contacts/${carols}/card`), 403, 'contact_not_active');
      assert.deepEqual(await copiesOf(r.us, alice.username, 'eu'), [family.id]);

      // dave: ended on both sides; alice's list says so.
      expectProblem(await us.get(dave, `/contacts/${daves}`), 404, 'contact_not_found');
      const ended = await eu.get(alice, '/subscriptions?status=ended');
      assert.deepEqual(ended.body.data.map((x: any) => [x.id, x.subscriber.username, x.subscriber.region]), [[daves, dave.username, 'us']]);
      const all = await eu.get(alice, '/subscriptions');
      assert.deepEqual(
        all.body.data.map((x: any) => [x.id, x.status, x.profile_id ?? null]).sort(),
        [
          [bobs, 'active', family.id],
          [carols, 'revoked', friends.id],
          [daves, 'ended', work.id],
        ].sort(),
      );
    });
  });
}
