// PRODUCT §3/§4/§6: deleting a profile (with move_to) while it is being granted (a subscription
// approved onto it or moved to it, a share link made for it or redeemed into it) ends in one of
// two orders, never in between: the grant comes first and the delete moves it along, or the
// delete comes first and the grant is refused with a problem (404). Never a 5xx, never a
// subscriber left on a deleted profile, never a link pointing at one.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import type { CallResult, Device } from '../helpers/client.js';
import { API, startSocialApp } from '../helpers/social.js';
import type { Social } from '../helpers/social.js';
import { expectProblem } from '../helpers/problem.js';

const PAIRS = 30;

for (const backend of backends) {
  describe(`deleting a profile while it is granted [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    let s: Social;
    before(async () => ({ t, s } = await startSocialApp(backend)));
    after(() => t.close());

    const remove = (owner: Device, profileId: string, moveTo: string) =>
      t.client.as(owner, 'DELETE', `${API}/profiles/${profileId}?move_to=${moveTo}`, { headers: { 'if-match': '"1"' } });

    /** The two answers of a raced pair: no 5xx, the delete done, the grant done or refused as gone. */
    function assertRaced(grant: CallResult, removed: CallResult, granted: number): void {
      assert.ok(grant.status < 500, `the grant answered ${grant.status} ${JSON.stringify(grant.body)}`);
      assert.ok(removed.status < 500, `the delete answered ${removed.status} ${JSON.stringify(removed.body)}`);
      assert.equal(removed.status, 204, `the delete answered ${removed.status} ${JSON.stringify(removed.body)}`);
      if (grant.status !== granted) expectProblem(grant, 404, 'profile_not_found');
    }

    /** Nothing of the owner's refers to a profile that is gone, and nobody active is without one. */
    async function assertConsistent(owner: Device): Promise<void> {
      const db = t.store.handle.db;
      const profiles = new Set((await db.selectFrom('profiles').select('id').where('account_id', '=', owner.accountId).execute()).map((r: { id: string }) => r.id));
      const subs = await db.selectFrom('subscriptions').select(['id', 'status', 'profile_id']).where('owner_id', '=', owner.accountId).execute();
      for (const sub of subs as Array<{ id: string; status: string; profile_id: string | null }>) {
        if (sub.status === 'active') assert.ok(sub.profile_id !== null && profiles.has(sub.profile_id), `active subscription ${sub.id} is on ${sub.profile_id}, which is gone`);
        else if (sub.profile_id !== null) assert.ok(profiles.has(sub.profile_id), `subscription ${sub.id} names ${sub.profile_id}, which is gone`);
      }
      const links = await db.selectFrom('share_links').select(['id', 'profile_id']).where('owner_id', '=', owner.accountId).execute();
      for (const link of links as Array<{ id: string; profile_id: string }>) assert.ok(profiles.has(link.profile_id), `share link ${link.id} points at ${link.profile_id}, which is gone`);
    }

    it('approving a request onto a profile being deleted: approved and moved along, or refused', async () => {
      const owner = await s.person('owner');
      const stay = await s.profile(owner, 'Stay');
      const subscriber = await s.person('sub');
      for (let i = 0; i < PAIRS; i++) {
        const doomed = await s.profile(owner, `Doomed ${i}`);
        const request = (await s.subscribe(subscriber, owner)).body;
        assert.equal(request.status, 'pending', JSON.stringify(request));
        const [grant, removed] = await Promise.all([s.approve(owner, request.id, doomed.id), remove(owner, doomed.id, stay.id)]);
        assertRaced(grant, removed, 200);
        const now = (await s.get(owner, `/subscriptions/${request.id}`)).body;
        if (grant.status === 200) assert.deepEqual([now.status, now.profile_id], ['active', stay.id], 'the delete moved the approved subscriber along');
        else assert.deepEqual([now.status, now.profile_id], ['pending', null], 'a refused approval wrote nothing');
        await assertConsistent(owner);
        assert.equal((await t.client.as(subscriber, 'DELETE', `${API}/contacts/${request.id}`)).status, 204);
      }
    });

    it('moving a subscriber to a profile being deleted: moved and moved along, or refused', async () => {
      const owner = await s.person('owner');
      const stay = await s.profile(owner, 'Stay');
      const home = await s.profile(owner, 'Home');
      const subscriber = await s.person('sub');
      const id = await s.connect(subscriber, owner, home.id);
      for (let i = 0; i < PAIRS; i++) {
        const doomed = await s.profile(owner, `Doomed ${i}`);
        const [grant, removed] = await Promise.all([s.post(owner, `/subscriptions/${id}/move`, { profile_id: doomed.id }), remove(owner, doomed.id, stay.id)]);
        assertRaced(grant, removed, 200);
        const now = (await s.get(owner, `/subscriptions/${id}`)).body;
        assert.equal(now.status, 'active');
        assert.equal(now.profile_id, grant.status === 200 ? stay.id : home.id, 'moved along with the delete, or not moved at all');
        await assertConsistent(owner);
        if (now.profile_id !== home.id) assert.equal((await s.post(owner, `/subscriptions/${id}/move`, { profile_id: home.id })).status, 200);
      }
    });

    it('making a share link for a profile being deleted: made and moved along, or refused', async () => {
      const owner = await s.person('owner');
      const stay = await s.profile(owner, 'Stay');
      for (let i = 0; i < PAIRS; i++) {
        const doomed = await s.profile(owner, `Doomed ${i}`);
        const [grant, removed] = await Promise.all([s.post(owner, '/share-links', { profile_id: doomed.id, auto_approve: true }), remove(owner, doomed.id, stay.id)]);
        assertRaced(grant, removed, 201);
        if (grant.status === 201) {
          const link = await t.store.handle.db.selectFrom('share_links').select('profile_id').where('id', '=', grant.body.id).executeTakeFirst();
          assert.equal(link?.profile_id, stay.id, 'the link made first follows its profile to move_to');
        }
        await assertConsistent(owner);
      }
    });

    it('redeeming a link into a profile being deleted: the new contact ends up on move_to', async () => {
      const owner = await s.person('owner');
      const stay = await s.profile(owner, 'Stay');
      const subscriber = await s.person('sub');
      for (let i = 0; i < PAIRS; i++) {
        const doomed = await s.profile(owner, `Doomed ${i}`);
        const link = (await s.post(owner, '/share-links', { profile_id: doomed.id, auto_approve: true })).body;
        const [grant, removed] = await Promise.all([s.post(subscriber, '/share-links/redeem', { token: link.token }), remove(owner, doomed.id, stay.id)]);
        assertRaced(grant, removed, 201);
        assert.equal(grant.status, 201, 'a link moved with its profile still works');
        const now = (await s.get(owner, `/subscriptions/${grant.body.id}`)).body;
        assert.deepEqual([now.status, now.profile_id], ['active', stay.id]);
        await assertConsistent(owner);
        assert.equal((await t.client.as(subscriber, 'DELETE', `${API}/contacts/${grant.body.id}`)).status, 204);
      }
    });
  });
}
