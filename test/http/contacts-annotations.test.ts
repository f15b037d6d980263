// PRODUCT §5: a note and labels per contact, private to their author (no signal or trace
// reaches the annotated person), If-Match after creation, label limits, GET /labels with counts,
// GET /contacts?label=, and deleted with the contact.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { API, startSocialApp } from '../helpers/social.js';
import type { Social } from '../helpers/social.js';
import { expectProblem } from '../helpers/problem.js';

for (const backend of backends) {
  describe(`contacts: annotations [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    let s: Social;
    before(async () => ({ t, s } = await startSocialApp(backend)));
    after(() => t.close());

    async function contacts(n: number) {
      const bob = await s.person('bob');
      const ids: string[] = [];
      const owners = [];
      for (let i = 0; i < n; i++) {
        const owner = await s.person('owner');
        const profile = await s.profile(owner, 'P');
        ids.push(await s.connect(bob, owner, profile.id));
        owners.push(owner);
      }
      return { bob, ids, owners };
    }
    const put = (device: any, id: string, body: unknown, ifMatch?: string) =>
      t.client.as(device, 'PUT', `${API}/contacts/${id}/annotation`, { body, headers: ifMatch ? { 'if-match': ifMatch } : {} });

    it('creates without If-Match, then needs it; only the author hears of it', async () => {
      const { bob, ids, owners } = await contacts(1);
      const id = ids[0]!;
      expectProblem(await s.get(bob, `/contacts/${id}/annotation`), 404, 'annotation_not_found');
      const ownerSignals = (await s.signals(owners[0]!)).length;
      const created = await put(bob, id, { note: 'Met at the conference.\nLikes tea.', labels: ['Work', 'Berlin'] });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.deepEqual({ ...created.body, updated_at: undefined }, { contact_id: id, note: 'Met at the conference.\nLikes tea.', labels: ['Work', 'Berlin'], updated_at: undefined, version: 1, schema_version: 1 });
      assert.equal(created.headers.get('etag'), '"1"');
      expectProblem(await put(bob, id, { note: 'again' }), 428, 'precondition_required');
      expectProblem(await put(bob, id, { note: 'again' }, '"7"'), 412, 'version_mismatch');
      const updated = await put(bob, id, { labels: ['work', 'Friends'] }, '"1"');
      assert.equal(updated.status, 200);
      assert.deepEqual(updated.body.labels, ['work', 'Friends']);
      assert.equal(updated.body.note, 'Met at the conference.\nLikes tea.', 'what is not sent stays');
      assert.deepEqual((await s.get(bob, `/contacts/${id}`)).body.labels, ['work', 'Friends']);
      assert.deepEqual((await s.signals(bob)).filter(([k]) => k === 'annotations.changed'), [
        ['annotations.changed', `/contacts/${id}/annotation`],
        ['annotations.changed', `/contacts/${id}/annotation`],
      ]);
      assert.equal((await s.signals(owners[0]!)).length, ownerSignals, 'the annotated person learns nothing');
      expectProblem(await s.get(owners[0]!, `/contacts/${id}/annotation`), 404, 'contact_not_found');
    });

    it('refuses notes and labels past the limits, writing nothing', async () => {
      const { bob, ids } = await contacts(1);
      const id = ids[0]!;
      for (const body of [
        { note: 'x'.repeat(4001) },
        { labels: Array.from({ length: 21 }, (_, i) => `l${i}`) },
        { labels: ['x'.repeat(33)] },
        { labels: [' '] },
        { labels: ['Work', 'WORK'] },
        { labels: ['\u202Eevil'] },
      ]) {
        expectProblem(await put(bob, id, body), 400, 'validation_failed');
      }
      expectProblem(await s.get(bob, `/contacts/${id}/annotation`), 404, 'annotation_not_found');
      assert.equal((await put(bob, id, { labels: Array.from({ length: 20 }, (_, i) => `l${i}`), note: 'n'.repeat(4000) })).status, 201, 'at the limits');
    });

    it('counts labels and filters contacts by label, ignoring case', async () => {
      const { bob, ids } = await contacts(3);
      await put(bob, ids[0]!, { labels: ['Work', 'Berlin'] });
      await put(bob, ids[1]!, { labels: ['work'] });
      await put(bob, ids[2]!, { labels: ['Family'] });
      const labels = await s.get(bob, '/labels');
      assert.deepEqual(labels.body.data, [{ label: 'Berlin', count: 1 }, { label: 'Family', count: 1 }, { label: 'Work', count: 2 }]);
      const work = await s.get(bob, '/contacts?label=WORK');
      assert.deepEqual(work.body.data.map((c: any) => c.id).sort(), [ids[0], ids[1]].sort());
      assert.deepEqual((await s.get(bob, '/contacts?label=nothing')).body.data, []);
    });

    it('goes with the contact, and can be deleted with If-Match', async () => {
      const { bob, ids } = await contacts(2);
      await put(bob, ids[0]!, { note: 'to forget' });
      assert.equal((await t.client.as(bob, 'DELETE', `${API}/contacts/${ids[0]}`)).status, 204);
      const rows = await t.store.handle.db.selectFrom('annotations').select('subscription_id').where('author_id', '=', bob.accountId).execute();
      assert.deepEqual(rows, []);
      assert.deepEqual((await s.get(bob, '/labels')).body.data, []);

      await put(bob, ids[1]!, { note: 'keep', labels: ['x'] });
      expectProblem(await t.client.as(bob, 'DELETE', `${API}/contacts/${ids[1]}/annotation`), 428, 'precondition_required');
      assert.equal((await t.client.as(bob, 'DELETE', `${API}/contacts/${ids[1]}/annotation`, { headers: { 'if-match': '"1"' } })).status, 204);
      expectProblem(await s.get(bob, `/contacts/${ids[1]}/annotation`), 404, 'annotation_not_found');
      assert.deepEqual((await s.get(bob, '/contacts?label=x')).body.data, []);
    });
  });
}
