// PRODUCT §4: subscriptions seen from both sides, every transition of the state table and every
// refused one, racing transitions, blocks, cards for subscribers (ETag/304, vCard, the all-contacts
// file), the fan-out of contact.card.changed to exactly those whose card changed, profile
// deletion with move_to, and the limits; each refusal a problem with nothing half-written.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import ICAL from 'ical.js';
import { TRANSITIONS } from '../../src/modules/contacts/states.js';
import type { SubscriptionStatus } from '../../src/modules/contacts/states.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import type { Device } from '../helpers/client.js';
import { API, startSocialApp } from '../helpers/social.js';
import type { Social } from '../helpers/social.js';
import { expectProblem } from '../helpers/problem.js';

for (const backend of backends) {
  describe(`subscriptions and contacts [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    let s: Social;
    before(async () => ({ t, s } = await startSocialApp(backend)));
    after(() => t.close());

    /** Alice with a phone on "Work" and an email on "Family". */
    async function alice() {
      const owner = await s.person('alice');
      const phone = await s.field(owner, { type: 'phone', value: '+49 30 22732152', label: 'work' });
      const email = await s.field(owner, { type: 'email', value: 'alice@example.com' });
      const work = await s.profile(owner, 'Work');
      const family = await s.profile(owner, 'Family');
      await s.expose(owner, work.id, phone.id);
      await s.expose(owner, family.id, email.id);
      return { owner, phone, email, work, family };
    }

    it('subscribes, approves onto a profile and shows the subscriber that card, both sides signalled', async () => {
      const { owner, work } = await alice();
      const bob = await s.person('bob');
      const request = await s.subscribe(bob, owner, 'Hi, we met at the conference');
      assert.equal(request.status, 201, JSON.stringify(request.body));
      const contact = request.body;
      assert.match(contact.id, /^sub_/);
      assert.deepEqual(
        { status: contact.status, owner: contact.owner, message: contact.message, labels: contact.labels, card_updated_at: contact.card_updated_at },
        { status: 'pending', owner: { username: owner.username, display_name: null, region: 'eu' }, message: 'Hi, we met at the conference', labels: [], card_updated_at: null },
      );
      assert.ok(!('profile_id' in contact), 'a subscriber never learns which profile it sees');
      assert.equal(request.headers.get('location'), `${API}/contacts/${contact.id}`);

      const pending = await s.get(owner, '/subscriptions?status=pending');
      assert.deepEqual(pending.body.data.map((x: any) => [x.id, x.status, x.subscriber.username, x.profile_id]), [[contact.id, 'pending', bob.username, null]]);
      expectProblem(await s.get(bob, `/contacts/${contact.id}/card`), 403, 'contact_not_active');

      const approved = await s.approve(owner, contact.id, work.id);
      assert.equal(approved.status, 200, JSON.stringify(approved.body));
      assert.equal(approved.body.status, 'active');
      assert.equal(approved.body.profile_id, work.id);
      const card = await s.get(bob, `/contacts/${contact.id}/card`);
      assert.equal(card.status, 200);
      const preview = await s.get(owner, `/profiles/${work.id}/preview`);
      assert.deepEqual(card.body.fields, preview.body.fields, 'the card of the profile the owner chose');
      assert.equal((await s.get(bob, `/contacts/${contact.id}`)).body.status, 'active');
      assert.equal((await s.get(owner, `/profiles/${work.id}`)).body.subscriber_count, 1);

      assert.deepEqual((await s.signals(owner)).filter(([k]) => k === 'subscriptions.changed').length, 2, 'request and approval');
      assert.deepEqual((await s.signals(bob)).filter(([k]) => k === 'contacts.changed').length, 2);
    });

    it('refuses yourself, a second request and unknown people; a refusal reads as no answer yet', async () => {
      const { owner, work } = await alice();
      const bob = await s.person('bob');
      expectProblem(await s.subscribe(owner, owner), 422, 'cannot_subscribe_to_self');
      expectProblem(await s.post(bob, '/contacts', { username: 'nobody-is-called-this' }), 404, 'account_not_found');
      const first = (await s.subscribe(bob, owner)).body;
      const twice = await s.subscribe(bob, owner);
      expectProblem(twice, 409, 'already_subscribed');
      assert.equal(twice.body.contact_id, first.id);
      await s.approve(owner, first.id, work.id);
      assert.equal((await s.subscribe(bob, owner)).body.contact_id, first.id, 'while active too');

      const carol = await s.person('carol');
      const request = (await s.subscribe(carol, owner)).body;
      assert.equal((await s.post(owner, `/subscriptions/${request.id}/deny`, { block: true })).body.status, 'denied');
      // Silent refusals (PRODUCT §4): to carol the request is still waiting, so asking again is "already waiting".
      const again = await s.subscribe(carol, owner);
      expectProblem(again, 409, 'already_subscribed');
      assert.equal(again.body.contact_id, request.id);
      assert.equal((await s.get(carol, `/contacts/${request.id}`)).body.status, 'pending');
      const blocks = await s.get(owner, '/blocks');
      assert.deepEqual(blocks.body.data.map((b: any) => b.username), [carol.username]);
      assert.equal((await t.client.as(owner, 'DELETE', `${API}/blocks/${carol.username}`)).status, 204);
      expectProblem(await t.client.as(owner, 'DELETE', `${API}/blocks/${carol.username}`), 404, 'block_not_found');
      const rows = await t.store.handle.db.selectFrom('subscriptions').select('status').where('owner_id', '=', owner.accountId).orderBy('status').execute();
      assert.deepEqual(rows.map((row) => row.status), ['active', 'denied'], 'refusals wrote nothing');
    });

    it('applies exactly the state table: every action from every state, allowed or 409', async () => {
      const { owner, work, family } = await alice();
      /** A subscription of a fresh subscriber brought to `state`. */
      async function inState(state: SubscriptionStatus): Promise<{ id: string; subscriber: Device }> {
        const subscriber = await s.person('st');
        let id = (await s.subscribe(subscriber, owner)).body.id as string;
        if (state === 'active' || state === 'revoked') await s.approve(owner, id, work.id);
        if (state === 'denied') await s.post(owner, `/subscriptions/${id}/deny`, {});
        if (state === 'silenced') {
          // Blocked, the person withdraws and asks again: a request the owner never sees.
          await s.post(owner, `/subscriptions/${id}/deny`, { block: true });
          await t.client.as(subscriber, 'DELETE', `${API}/contacts/${id}`);
          id = (await s.subscribe(subscriber, owner)).body.id as string;
        }
        if (state === 'revoked') await s.post(owner, `/subscriptions/${id}/revoke`, {});
        if (state === 'ended') await t.client.as(subscriber, 'DELETE', `${API}/contacts/${id}`);
        return { id, subscriber };
      }
      const act = (action: 'approve' | 'deny' | 'move' | 'revoke' | 'unsubscribe', id: string, subscriber: Device) =>
        action === 'unsubscribe'
          ? t.client.as(subscriber, 'DELETE', `${API}/contacts/${id}`)
          : s.post(owner, `/subscriptions/${id}/${action}`, action === 'approve' || action === 'move' ? { profile_id: family.id } : {});
      // The routes' actions; unblock and expire have their own tests (contacts-silent-refusals).
      const routed = (['approve', 'deny', 'move', 'revoke', 'unsubscribe'] as const).map((action) => [action, TRANSITIONS[action]] as const);
      for (const from of ['pending', 'active', 'denied', 'silenced', 'revoked', 'ended'] as SubscriptionStatus[]) {
        for (const [action, rule] of routed) {
          const { id, subscriber } = await inState(from);
          const res = await act(action, id, subscriber);
          const allowed = (rule.from as readonly string[]).includes(from);
          if (action === 'unsubscribe') {
            // A revoked contact leaves the list instead (no transition); an ended one already has.
            if (from === 'ended') expectProblem(res, 404, 'contact_not_found');
            else assert.equal(res.status, 204, `${action} from ${from}: ${JSON.stringify(res.body)}`);
          } else if (from === 'silenced') {
            // The owner never sees a blocked person's request.
            expectProblem(res, 404, 'subscription_not_found');
          } else if (allowed) {
            assert.equal(res.status, 200, `${action} from ${from}: ${JSON.stringify(res.body)}`);
            assert.equal(res.body.status, rule.to);
          } else {
            expectProblem(res, 409, 'invalid_transition');
          }
          const row = (await t.store.handle.db.selectFrom('subscriptions').select('status').where('id', '=', id).executeTakeFirst())!;
          assert.equal(row.status, allowed ? rule.to : from, `${action} from ${from} left the row ${row.status}`);
        }
      }
    });

    it('takes many people asking one owner at once, each request once (no deadlock between them)', async () => {
      const { owner } = await alice();
      const people = await Promise.all(Array.from({ length: 8 }, () => s.person('crowd')));
      const asked = await Promise.all(people.map((person) => s.subscribe(person, owner)));
      assert.deepEqual(asked.map((res) => res.status), people.map(() => 201), JSON.stringify(asked.filter((res) => res.status !== 201).map((res) => res.body)));
      const pending = await s.get(owner, '/subscriptions?status=pending&limit=50');
      assert.equal(new Set(pending.body.data.map((sub: { id: string }) => sub.id)).size, pending.body.data.length);
      for (const res of asked) assert.ok(pending.body.data.some((sub: { id: string }) => sub.id === res.body.id));
    });

    it('lets exactly one of two racing transitions win; the other gets 409', async () => {
      const { owner, work } = await alice();
      for (let i = 0; i < 4; i++) {
        const bob = await s.person('race');
        const id = (await s.subscribe(bob, owner)).body.id;
        const [approve, deny] = await Promise.all([s.approve(owner, id, work.id), s.post(owner, `/subscriptions/${id}/deny`, {})]);
        assert.deepEqual([approve.status, deny.status].sort(), [200, 409], JSON.stringify([approve.body, deny.body]));
        const [revoke, unsubscribe] = approve.status === 200 ? await Promise.all([s.post(owner, `/subscriptions/${id}/revoke`, {}), t.client.as(bob, 'DELETE', `${API}/contacts/${id}`)]) : [];
        if (revoke && unsubscribe) {
          const status = (await t.store.handle.db.selectFrom('subscriptions').select('status').where('id', '=', id).executeTakeFirst())!.status;
          assert.ok(status === 'revoked' || status === 'ended');
          assert.ok(revoke.status === 200 ? status === 'revoked' : status === 'ended', `revoke ${revoke.status}, row ${status}`);
        }
      }
    });

    it('answers 404 for other people\'s subscriptions and profiles, from either side', async () => {
      const { owner, work } = await alice();
      const bob = await s.person('bob');
      const mallory = await s.person('mallory');
      const mine = await s.profile(mallory, 'Mine');
      const id = (await s.subscribe(bob, owner)).body.id;
      expectProblem(await s.approve(owner, id, mine.id), 404, 'profile_not_found');
      expectProblem(await s.approve(mallory, id, mine.id), 404, 'subscription_not_found');
      expectProblem(await s.get(mallory, `/subscriptions/${id}`), 404, 'subscription_not_found');
      expectProblem(await s.get(mallory, `/contacts/${id}`), 404, 'contact_not_found');
      expectProblem(await s.get(mallory, `/contacts/${id}/card`), 404, 'contact_not_found');
      expectProblem(await s.get(owner, `/contacts/${id}`), 404, 'contact_not_found');
      expectProblem(await s.get(bob, `/subscriptions/${id}`), 404, 'subscription_not_found');
      expectProblem(await s.post(owner, `/subscriptions/${id}/move`, { profile_id: work.id }), 409, 'invalid_transition');
      assert.equal((await s.get(owner, `/subscriptions/${id}`)).body.status, 'pending');
    });

    it('moves a subscriber to another profile: their card changes, they alone are told', async () => {
      const { owner, work, family } = await alice();
      const bob = await s.person('bob');
      const carol = await s.person('carol');
      const bobId = await s.connect(bob, owner, work.id);
      await s.connect(carol, owner, work.id);
      t.clock.advance(5000);
      const before = (await s.get(bob, `/contacts/${bobId}/card`));
      const bobSignals = (await s.signals(bob)).length;
      const carolSignals = (await s.signals(carol)).length;
      const moved = await s.post(owner, `/subscriptions/${bobId}/move`, { profile_id: family.id });
      assert.equal(moved.status, 200);
      assert.equal(moved.body.profile_id, family.id);
      const after = await s.get(bob, `/contacts/${bobId}/card`);
      assert.deepEqual(after.body.fields.map((f: any) => f.type), ['email']);
      assert.notEqual(after.headers.get('etag'), before.headers.get('etag'));
      assert.equal(new Date(after.body.updated_at).getTime(), t.clock.now(), 'for Bob the card changed when he was moved');
      assert.equal((await s.get(bob, `/contacts/${bobId}`)).body.card_updated_at, after.body.updated_at);
      assert.deepEqual((await s.signals(bob)).slice(bobSignals), [['contact.card.changed', `/contacts/${bobId}/card`]]);
      assert.equal((await s.signals(carol)).length, carolSignals, 'Carol\'s card did not change');
      assert.equal((await s.post(owner, `/subscriptions/${bobId}/move`, { profile_id: family.id })).status, 200, 'moving where it is changes nothing');
      assert.equal((await s.signals(bob)).length, bobSignals + 1);
    });

    it('fans contact.card.changed out to exactly the active subscribers whose card changed', async () => {
      const { owner, phone, email, work, family } = await alice();
      const onWork = [await s.person('w1'), await s.person('w2')];
      const onFamily = await s.person('f1');
      const waiting = await s.person('p1');
      const gone = await s.person('r1');
      const ids = new Map<Device, string>();
      for (const d of onWork) ids.set(d, await s.connect(d, owner, work.id));
      ids.set(onFamily, await s.connect(onFamily, owner, family.id));
      await s.subscribe(waiting, owner);
      const goneId = await s.connect(gone, owner, work.id);
      await s.post(owner, `/subscriptions/${goneId}/revoke`, {});
      const everyone = [...onWork, onFamily, waiting, gone];
      const counts = async () => Promise.all(everyone.map(async (d) => (await s.signals(d)).filter(([k]) => k === 'contact.card.changed')));
      const start = await counts();
      const grew = async () => (await counts()).map((now, i) => now.slice(start[i]!.length));

      // The phone is on Work only: Work's active subscribers, and nobody else.
      await t.client.as(owner, 'PATCH', `${API}/me/fields/${phone.id}`, { body: { value: '+49 30 22730' }, headers: { 'if-match': '"1"' } });
      let delta = await grew();
      assert.deepEqual(delta.map((d) => d.length), [1, 1, 0, 0, 0]);
      assert.deepEqual(delta[0], [['contact.card.changed', `/contacts/${ids.get(onWork[0]!)}/card`]]);

      // The display name is on every card: every active subscriber.
      await t.client.as(owner, 'PATCH', `${API}/me`, { body: { display_name: 'Alice A.' }, headers: { 'if-match': '"1"' } });
      delta = await grew();
      assert.deepEqual(delta.map((d) => d.length), [2, 2, 1, 0, 0]);

      // An exposure added to Family, then the email deleted (on Family): Family only.
      const nick = await s.field(owner, { type: 'nickname', value: 'Al' });
      await s.expose(owner, family.id, nick.id);
      assert.deepEqual((await grew()).map((d) => d.length), [2, 2, 2, 0, 0]);
      await t.client.as(owner, 'DELETE', `${API}/me/fields/${email.id}`, { headers: { 'if-match': '"1"' } });
      delta = await grew();
      assert.deepEqual(delta.map((d) => d.length), [2, 2, 3, 0, 0]);

      // Two edits between two polls are one signal: the card is pulled once (decision 220).
      const second = await s.field(owner, { type: 'nickname', value: 'Ally' });
      await s.expose(owner, family.id, second.id);
      await t.client.as(owner, 'PATCH', `${API}/me/fields/${second.id}`, { body: { value: 'Allie' }, headers: { 'if-match': '"1"' } });
      delta = await grew();
      assert.deepEqual(delta.map((d) => d.length), [2, 2, 4, 0, 0]);

      // Fields no profile shows, and the profiles' names, change no card.
      const hidden = await s.field(owner, { type: 'url', value: 'https://example.com' });
      await t.client.as(owner, 'PATCH', `${API}/me/fields/${hidden.id}`, { body: { value: 'https://example.org' }, headers: { 'if-match': '"1"' } });
      await t.client.as(owner, 'PATCH', `${API}/profiles/${work.id}`, { body: { name: 'Office' }, headers: { 'if-match': '"1"' } });
      assert.deepEqual((await grew()).map((d) => d.length), [2, 2, 4, 0, 0]);
    });

    it('deletes a profile people see only with move_to, moving them and telling them', async () => {
      const { owner, work, family } = await alice();
      const bob = await s.person('bob');
      const id = await s.connect(bob, owner, work.id);
      expectProblem(await t.client.as(owner, 'DELETE', `${API}/profiles/${work.id}`, { headers: { 'if-match': '"1"' } }), 409, 'profile_in_use');
      assert.equal((await s.get(owner, `/profiles/${work.id}`)).status, 200, 'nothing was deleted');
      const signals = (await s.signals(bob)).length;
      assert.equal((await t.client.as(owner, 'DELETE', `${API}/profiles/${work.id}?move_to=${family.id}`, { headers: { 'if-match': '"1"' } })).status, 204);
      assert.equal((await s.get(owner, `/subscriptions/${id}`)).body.profile_id, family.id);
      assert.equal((await s.get(owner, `/profiles/${family.id}`)).body.subscriber_count, 1);
      assert.deepEqual((await s.get(bob, `/contacts/${id}/card`)).body.fields.map((f: any) => f.type), ['email']);
      assert.deepEqual((await s.signals(bob)).slice(signals), [['contact.card.changed', `/contacts/${id}/card`]]);
    });

    it('serves a contact\'s card with ETag/304, as a vCard, and every contact in one file', async () => {
      const { owner, work } = await alice();
      const dave = await s.person('dave');
      await s.field(dave, { type: 'nickname', value: 'Dave' });
      const daveProfile = await s.profile(dave, 'All');
      const bob = await s.person('bob');
      const a = await s.connect(bob, owner, work.id);
      const d = await s.connect(bob, dave, daveProfile.id);
      const card = await s.get(bob, `/contacts/${a}/card`);
      assert.equal(card.headers.get('cache-control'), 'private, no-cache');
      assert.equal((await s.get(bob, `/contacts/${a}/card`, { 'if-none-match': card.headers.get('etag')! })).status, 304);
      const one = await s.get(bob, `/contacts/${a}/vcard?version=3.0`);
      assert.equal(one.status, 200);
      assert.equal(one.headers.get('content-type'), 'text/vcard; charset=utf-8');
      assert.equal((await s.get(bob, `/contacts/${a}/vcard`)).body, one.body, '3.0 is the default');
      assert.equal(new ICAL.Component(ICAL.parse(one.body) as unknown[]).getAllProperties('tel').length, 1);
      const all = await s.get(bob, '/contacts/vcard?version=3.0');
      assert.equal(all.status, 200);
      assert.equal(all.headers.get('content-disposition'), 'attachment; filename=contacts.vcf');
      const cards = (ICAL.parse(all.body) as unknown[][]).map((jcard) => new ICAL.Component(jcard));
      assert.equal(cards.length, 2);
      assert.deepEqual(new Set(cards.map((c) => String(c.getFirstPropertyValue('uid')))).size, 2, 'each contact its own UID');
      await s.post(owner, `/subscriptions/${a}/revoke`, {});
      expectProblem(await s.get(bob, `/contacts/${a}/card`), 403, 'contact_not_active');
      expectProblem(await s.get(bob, `/contacts/${a}/vcard`), 403, 'contact_not_active');
      assert.equal((await s.get(bob, '/contacts/vcard')).body.match(/BEGIN:VCARD/g).length, 1, 'a revoked contact is not in the file');
      assert.ok(d);
    });

    it('unsubscribes (pending or active → ended), and an ended contact leaves the list', async () => {
      const { owner, work } = await alice();
      const bob = await s.person('bob');
      const id = await s.connect(bob, owner, work.id);
      assert.equal((await t.client.as(bob, 'DELETE', `${API}/contacts/${id}`)).status, 204);
      assert.equal((await s.get(owner, `/subscriptions/${id}`)).body.status, 'ended');
      expectProblem(await s.get(bob, `/contacts/${id}`), 404, 'contact_not_found');
      assert.deepEqual((await s.get(bob, '/contacts')).body.data, []);
      assert.equal((await s.subscribe(bob, owner)).status, 201, 'may subscribe again');
    });

    it('limits new requests to 50 a day, and contacts to 5,000', async () => {
      const bob = await s.person('busy');
      const now = t.clock.now();
      // 4,999 live contacts with as many owners, written straight to the store.
      const db = t.store.handle.db;
      const owners = Array.from({ length: 4999 }, (_, i) => ({
        id: `acc_lim${bob.accountId.slice(-8)}${String(i).padStart(5, '0')}`,
        username: `lim${bob.accountId.slice(-8).toLowerCase().replace(/[^a-z0-9]/g, 'x')}${i}`,
      }));
      for (let i = 0; i < owners.length; i += 500) {
        const chunk = owners.slice(i, i + 500);
        await db.insertInto('accounts').values(chunk.map((o) => ({
          id: o.id, username: o.username, username_canonical: o.username, username_skeleton: o.username, user_handle: o.id,
          display_name: null, locale: null, default_country: null, region: 'eu', version: 1, created_at: now,
        }))).execute();
        await db.insertInto('subscriptions').values(chunk.map((o, j) => ({
          id: `sub_lim${bob.accountId.slice(-8)}${String(i + j).padStart(5, '0')}`, owner_id: o.id, subscriber_id: bob.accountId, profile_id: null, status: 'pending',
          message: null, share_link_id: null, version: 1, created_at: now - 2 * 86_400_000, updated_at: now, card_since: null, hidden_at: null,
        }))).execute();
      }
      const first = await s.person('target');
      assert.equal((await s.subscribe(bob, first)).status, 201, 'the 5,000th');
      expectProblem(await s.subscribe(bob, await s.person('target')), 409, 'contact_limit');

      const eve = await s.person('eager');
      const targets = await Promise.all(Array.from({ length: 51 }, () => s.person('t')));
      for (const target of targets.slice(0, 50)) assert.equal((await s.subscribe(eve, target)).status, 201);
      const refused = await s.subscribe(eve, targets[50]!);
      expectProblem(refused, 429, 'subscription_request_limit');
      assert.ok(Number(refused.headers.get('retry-after')) > 0);
      t.clock.advance(86_400_000 + 1000);
      const again = await t.client.logIn(eve.authenticator);
      Object.assign(eve, { key: again.key, tokens: again.body });
      assert.equal((await s.subscribe(eve, targets[50]!)).status, 201, 'a day later');
    });
  });
}
