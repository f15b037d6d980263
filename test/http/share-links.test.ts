// PRODUCT §6: share links: create (Idempotency-Key), list (the token again, for the QR code),
// revoke; resolve without sign-in (the owner's name, never the profile's); redeem (active at once with
// auto_approve, else pending; 410 when expired, used up or revoked); uses counted atomically
// (20 concurrent redeems of a one-use link: exactly one contact); tokens never in logs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PUBLIC_ORIGIN } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { withLoggedApp } from '../helpers/logged-app.js';
import type { Device } from '../helpers/client.js';
import { API, startSocialApp } from '../helpers/social.js';
import type { Social } from '../helpers/social.js';
import { expectProblem } from '../helpers/problem.js';

for (const backend of backends) {
  describe(`share links [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    let s: Social;
    before(async () => ({ t, s } = await startSocialApp(backend)));
    after(() => t.close());

    async function owner() {
      const alice = await s.person('alice');
      await t.client.as(alice, 'PATCH', `${API}/me`, { body: { display_name: 'Alice' }, headers: { 'if-match': '"1"' } });
      const phone = await s.field(alice, { type: 'phone', value: '+49 30 22732152' });
      const work = await s.profile(alice, 'Work');
      await s.expose(alice, work.id, phone.id);
      return { alice, work };
    }
    const resolve = (token: string) => t.client.call('GET', `${API}/share-links/resolve?token=${encodeURIComponent(token)}`);
    const redeem = (device: Device, token: string) => s.post(device, '/share-links/redeem', { token });

    it('creates a link, shows it again, resolves it for anyone and redeems it into an active contact', async () => {
      const { alice, work } = await owner();
      const created = await s.post(alice, '/share-links', { profile_id: work.id, auto_approve: true, max_uses: 5 });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const link = created.body;
      assert.match(link.id, /^shl_/);
      assert.match(link.token, /^[A-Za-z0-9_-]{32}$/, '192 random bits');
      // The token in the fragment, which no browser sends to a server (nor in a Referer).
      assert.equal(link.url, `${PUBLIC_ORIGIN}/s/#${link.token}`);
      assert.deepEqual({ uses: link.uses, max_uses: link.max_uses, auto_approve: link.auto_approve, state: link.state, expires_at: link.expires_at }, { uses: 0, max_uses: 5, auto_approve: true, state: 'active', expires_at: null });
      assert.equal(created.headers.get('cache-control'), 'no-store');
      const listed = await s.get(alice, '/share-links');
      assert.deepEqual(listed.body.data.map((l: any) => [l.id, l.token]), [[link.id, link.token]], 'the owner can show the QR code again');

      const resolved = await resolve(link.token);
      assert.equal(resolved.status, 200);
      assert.deepEqual(resolved.body, { owner: { username: alice.username, display_name: 'Alice' }, auto_approve: true, expires_at: null, schema_version: 1 });

      const bob = await s.person('bob');
      const contact = await redeem(bob, link.token);
      assert.equal(contact.status, 201, JSON.stringify(contact.body));
      assert.equal(contact.body.status, 'active');
      assert.equal((await s.get(bob, `/contacts/${contact.body.id}/card`)).body.fields.length, 1);
      assert.equal((await s.get(alice, '/share-links')).body.data[0].uses, 1);
      assert.ok((await s.signals(alice)).some(([k]) => k === 'share_links.changed'));
      expectProblem(await redeem(bob, link.token), 409, 'already_subscribed');
      expectProblem(await redeem(alice, link.token), 422, 'cannot_subscribe_to_self');
      assert.equal((await s.get(alice, '/share-links')).body.data[0].uses, 1, 'refused redeems use nothing');
    });

    it('makes a pending request without auto_approve, which the owner approves', async () => {
      const { alice, work } = await owner();
      const link = (await s.post(alice, '/share-links', { profile_id: work.id, auto_approve: false })).body;
      const bob = await s.person('bob');
      const contact = (await redeem(bob, link.token)).body;
      assert.equal(contact.status, 'pending');
      assert.equal((await s.approve(alice, contact.id, work.id)).body.status, 'active');
    });

    it('names the link a request came through and suggests its profile, never to the person who asked (PRODUCT §4)', async () => {
      const { alice, work } = await owner();
      const home = await s.profile(alice, 'Home');
      const link = await s.post(alice, '/share-links', { profile_id: work.id, auto_approve: false, label: '  Conference badge ' });
      assert.equal(link.status, 201, JSON.stringify(link.body));
      assert.equal(link.body.label, 'Conference badge', 'kept trimmed');
      assert.equal((await s.get(alice, '/share-links')).body.data[0].label, 'Conference badge');
      const plain = (await s.post(alice, '/share-links', { profile_id: work.id, auto_approve: false })).body;
      assert.equal(plain.label, null);
      for (const label of ['', '   ', 'x'.repeat(65)]) expectProblem(await s.post(alice, '/share-links', { profile_id: work.id, auto_approve: false, label }), 400, 'validation_failed');

      const bob = await s.person('bob');
      const viaLink = (await redeem(bob, link.body.token)).body;
      const carol = await s.person('carol');
      const viaPlain = (await redeem(carol, plain.token)).body;
      const dave = await s.person('dave');
      const byName = (await s.post(dave, '/contacts', { username: alice.username })).body;

      const request = (await s.get(alice, `/subscriptions/${viaLink.id}`)).body;
      assert.deepEqual(request.via_share_link, { id: link.body.id, label: 'Conference badge' });
      assert.equal(request.suggested_profile_id, work.id, 'the link\'s profile, not the first one listed');
      const pending = (await s.get(alice, '/subscriptions?status=pending')).body.data;
      assert.deepEqual(pending.find((sub: any) => sub.id === viaLink.id).via_share_link, { id: link.body.id, label: 'Conference badge' }, 'the list says it too');
      const unlabelled = pending.find((sub: any) => sub.id === viaPlain.id);
      assert.deepEqual([unlabelled.via_share_link, unlabelled.suggested_profile_id], [{ id: plain.id, label: null }, work.id]);
      const named = pending.find((sub: any) => sub.id === byName.id);
      assert.deepEqual([named.via_share_link, named.suggested_profile_id], [null, null], 'a request by username came through no link');

      // The person who asked never learns which link or profile (PRODUCT §4, privacy).
      const seen = JSON.stringify((await s.get(bob, `/contacts/${viaLink.id}`)).body);
      for (const secret of ['Conference badge', link.body.id, work.id, 'via_share_link', 'suggested_profile_id']) assert.ok(!seen.includes(secret), `${secret} in ${seen}`);

      // A revoked link still says where the request came from; its profile moves with a delete's
      // move_to, and a delete without one leaves nothing to suggest.
      assert.equal((await t.client.as(alice, 'DELETE', `${API}/share-links/${link.body.id}`)).status, 204);
      assert.equal((await t.client.as(alice, 'DELETE', `${API}/profiles/${work.id}?move_to=${home.id}`, { headers: { 'if-match': '"1"' } })).status, 204);
      const moved = (await s.get(alice, `/subscriptions/${viaLink.id}`)).body;
      assert.deepEqual([moved.via_share_link, moved.suggested_profile_id], [{ id: link.body.id, label: 'Conference badge' }, home.id]);
      assert.equal((await t.client.as(alice, 'DELETE', `${API}/profiles/${home.id}`, { headers: { 'if-match': '"1"' } })).status, 204);
      const dropped = (await s.get(alice, `/subscriptions/${viaLink.id}`)).body;
      assert.deepEqual([dropped.via_share_link, dropped.suggested_profile_id], [{ id: link.body.id, label: 'Conference badge' }, null]);
    });

    it('answers 410 for expired, used-up and revoked links, and 404 for unknown ones', async () => {
      const { alice, work } = await owner();
      const bob = await s.person('bob');
      const soon = (await s.post(alice, '/share-links', { profile_id: work.id, auto_approve: true, expires_at: new Date(t.clock.now() + 60_000).toISOString() })).body;
      const once = (await s.post(alice, '/share-links', { profile_id: work.id, auto_approve: true, max_uses: 1 })).body;
      const revoked = (await s.post(alice, '/share-links', { profile_id: work.id, auto_approve: true })).body;
      assert.equal((await redeem(await s.person('first'), once.token)).status, 201);
      assert.equal((await t.client.as(alice, 'DELETE', `${API}/share-links/${revoked.id}`)).status, 204);
      t.clock.advance(61_000);
      for (const token of [soon.token, once.token, revoked.token]) {
        expectProblem(await resolve(token), 410, 'share_link_gone');
        expectProblem(await redeem(bob, token), 410, 'share_link_gone');
      }
      expectProblem(await resolve('A'.repeat(32)), 404, 'share_link_not_found');
      expectProblem(await resolve('not a token'), 404, 'share_link_not_found');
      assert.deepEqual((await s.get(alice, '/share-links')).body.data.map((l: any) => [l.id, l.state]).sort(), [[once.id, 'used_up'], [soon.id, 'expired']].sort());
      expectProblem(await s.post(alice, '/share-links', { profile_id: work.id, auto_approve: true, expires_at: new Date(t.clock.now() - 1).toISOString() }), 400, 'validation_failed');
      expectProblem(await s.post(alice, '/share-links', { profile_id: work.id, auto_approve: true, max_uses: 0 }), 400, 'validation_failed');
      const mallory = await s.person('mallory');
      expectProblem(await s.post(mallory, '/share-links', { profile_id: work.id, auto_approve: true }), 404, 'profile_not_found');
      expectProblem(await t.client.as(mallory, 'DELETE', `${API}/share-links/${soon.id}`), 404, 'share_link_not_found');
    });

    it('never tells a visitor which profile the link gives: the profile\'s name is nowhere in the answer (PRODUCT 2026-11-26)', async () => {
      const { alice, work } = await owner();
      // A name no other part of the answer can contain by chance (usernames are lower-case).
      const secret = `Quiet Audience ${Date.now().toString(36)} Ω`;
      const renamed = await t.client.as(alice, 'PATCH', `${API}/profiles/${work.id}`, { body: { name: secret }, headers: { 'if-match': '"1"' } });
      assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
      for (const autoApprove of [true, false]) {
        const link = (await s.post(alice, '/share-links', { profile_id: work.id, auto_approve: autoApprove, expires_at: new Date(t.clock.now() + 86_400_000).toISOString() })).body;
        const resolved = await resolve(link.token);
        assert.equal(resolved.status, 200);
        assert.deepEqual(Object.keys(resolved.body).sort(), ['auto_approve', 'expires_at', 'owner', 'schema_version']);
        const raw = JSON.stringify(resolved.body);
        for (const part of [secret, 'Quiet Audience', work.id]) assert.ok(!raw.includes(part), `the resolve answer holds ${part}: ${raw}`);
        for (const [name, value] of resolved.headers) assert.ok(!value.includes('Quiet Audience') && !value.includes(work.id), `header ${name}: ${value}`);
      }
      // Nor after redeeming: the contact and its card never name the profile either (PRODUCT §4).
      const bob = await s.person('bob');
      const link = (await s.post(alice, '/share-links', { profile_id: work.id, auto_approve: true })).body;
      const contact = (await redeem(bob, link.token)).body;
      for (const path of [`/contacts/${contact.id}`, `/contacts/${contact.id}/card`, '/contacts']) {
        const raw = JSON.stringify((await s.get(bob, path)).body);
        assert.ok(!raw.includes('Quiet Audience') && !raw.includes(work.id), `${path}: ${raw}`);
      }
    });

    it('lets exactly one of 20 people racing for a one-use link in', async () => {
      const { alice, work } = await owner();
      const link = (await s.post(alice, '/share-links', { profile_id: work.id, auto_approve: true, max_uses: 1 })).body;
      const people = await Promise.all(Array.from({ length: 20 }, () => s.person('racer')));
      const answers = await Promise.all(people.map((p) => redeem(p, link.token)));
      assert.deepEqual(answers.map((a) => a.status).sort(), [201, ...Array(19).fill(410)], JSON.stringify(answers.map((a) => a.body.code)));
      const rows = await t.store.handle.db.selectFrom('subscriptions').select('id').where('owner_id', '=', alice.accountId).execute();
      assert.equal(rows.length, 1, 'exactly one contact');
      assert.equal((await s.get(alice, '/share-links')).body.data[0].uses, 1);
    });

    it('moves links with their profile on delete with move_to, and drops them otherwise', async () => {
      const { alice, work } = await owner();
      const home = await s.profile(alice, 'Home');
      const spare = await s.profile(alice, 'Spare');
      const link = (await s.post(alice, '/share-links', { profile_id: work.id, auto_approve: true })).body;
      const other = (await s.post(alice, '/share-links', { profile_id: spare.id, auto_approve: true })).body;
      assert.equal((await t.client.as(alice, 'DELETE', `${API}/profiles/${work.id}?move_to=${home.id}`, { headers: { 'if-match': '"1"' } })).status, 204);
      const moved = await resolve(link.token);
      assert.equal(moved.status, 200, 'the link follows its profile');
      assert.equal((await redeem(await s.person('mover'), link.token)).body.status, 'active');
      const subscriber = (await s.get(alice, '/subscriptions')).body.data.find((sub: any) => sub.status === 'active');
      assert.equal(subscriber.profile_id, home.id, 'a redeem after the move subscribes to the profile it moved to');
      assert.equal((await t.client.as(alice, 'DELETE', `${API}/profiles/${spare.id}`, { headers: { 'if-match': '"1"' } })).status, 204);
      expectProblem(await resolve(other.token), 404, 'share_link_not_found');
    });
  });

  describe(`share-link tokens never reach the logs [${backend.name}]`, { skip: backend.skip }, () => {
    it('create, list, resolve, redeem, the /s/#<token> page and an older /s/<token> link: no log line holds the token', async () => {
      await withLoggedApp(backend, async ({ lines, baseUrl, client, s }) => {
        const alice = await s.person('logged');
        const profile = await s.profile(alice, 'Work');
        const link = (await s.post(alice, '/share-links', { profile_id: profile.id, auto_approve: true })).body;
        await s.get(alice, '/share-links');
        await client.call('GET', `${API}/share-links/resolve?token=${link.token}`);
        await s.post(await s.person('bob'), '/share-links/redeem', { token: link.token });
        // What a browser asks for when it opens link.url: the fragment stays behind.
        const opened = new URL(link.url.replace(PUBLIC_ORIGIN, baseUrl));
        assert.equal(opened.hash, `#${link.token}`);
        const page = await fetch(`${baseUrl}${opened.pathname}${opened.search}`);
        assert.equal(page.status, 200);
        assert.match(page.headers.get('content-type') ?? '', /text\/html/);
        // A link made before the token moved still opens the same page.
        assert.equal((await fetch(`${baseUrl}/s/${link.token}`)).status, 200);
        await client.call('GET', `${API}/share-links/resolve?token=${link.token}x`);
        // One record per request: those that carried the token are there, without it.
        for (const request of ['GET /api/v1/share-links/resolve 200', 'POST /api/v1/share-links/redeem 201', 'GET /s/ 200', 'GET /s/[token] 200']) {
          assert.ok(lines.some((line) => line.includes(`"msg":"${request}`)), `${request} was logged`);
        }
        for (const line of lines) assert.ok(!line.includes(link.token), `a log line holds the token: ${line.slice(0, 300)}`);
      });
    });
  });
}
