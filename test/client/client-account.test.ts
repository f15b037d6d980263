// The client's lifecycle methods against the real server (PRODUCT §8): the export with a
// step-up, delete, what a deleted account may still do, and undelete.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientFor, signUp } from '../../client/test/harness.js';
import { isProblem } from '../../client/src/index.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';

for (const backend of backends) {
  describe(`client: export, delete, undelete [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      // Not the defaults: what the client is told must be this server's settings.
      t = await startTestApp(backend, { ACCOUNT_GRACE_DAYS: '7', USERNAME_HOLD_DAYS: '0' });
    });
    after(async () => {
      await t.close();
    });

    it('exports with a step-up, deletes, exports while deleted, and restores everything', async () => {
      const h = clientFor(t);
      const username = uniqueName('cacct');
      await signUp(h, username);
      const { client } = h;
      const stepUp = h.getAssertion;
      const field = await client.request('POST', '/me/fields', { body: { type: 'nickname', value: 'Ada' } });
      const profile = await client.profiles.create({ name: 'Friends' });

      const doc = await client.account.export({ stepUp });
      assert.equal(doc.schema_version, 1);
      assert.equal(doc.account.username, username);
      assert.deepEqual(doc.fields.map((f) => f.id), [field.id]);
      assert.deepEqual(doc.profiles.map((p) => p.id), [profile.id]);
      assert.ok(doc.left_out.length > 0 && doc.left_out.every((l) => l.table && l.reason));
      assert.equal(h.calls('POST', '/auth/step-up/begin').length, 1);
      assert.ok(h.calls('GET', '/account/export')[0]!.headers.get('vid-step-up'), 'the assertion rides in VID-Step-Up');

      // Without a step-up the server asks for one, and the client has nothing to answer with.
      await assert.rejects(client.account.remove(), (error) => isProblem(error) && error.code === 'step_up_required');

      // What deleting means here, said before asking.
      assert.deepEqual(await client.account.deletionTerms(), { grace_days: 7, username_hold_days: 0, schema_version: 1 });
      const deletion = await client.account.remove({ stepUp });
      assert.equal(deletion.status, 'deleted');
      assert.equal(Date.parse(deletion.purge_at) - Date.parse(deletion.deleted_at), 7 * 86_400_000);
      assert.deepEqual(await client.account.deletionTerms(), { grace_days: 7, username_hold_days: 0, schema_version: 1 }, 'and while deleted');
      const me = await client.me.get();
      assert.deepEqual([me.status, me.deleted_at, me.purge_at], ['deleted', deletion.deleted_at, deletion.purge_at]);
      await assert.rejects(client.profiles.get(profile.id), (error) => isProblem(error) && error.status === 403 && error.code === 'account_deleted');
      const during = await client.account.export({ stepUp });
      assert.equal(during.account.status, 'deleted');
      assert.deepEqual(during.fields.map((f) => f.id), [field.id]);

      const restored = await client.account.undelete();
      assert.equal(restored.status, 'active');
      assert.equal(restored.deleted_at, null);
      assert.equal(restored.purge_at, null);
      assert.equal((await client.profiles.get(profile.id)).name, 'Friends');
      // The version undelete answered is the one the next update goes with.
      assert.equal((await client.me.patch({ display_name: 'Ada' })).display_name, 'Ada');
      await assert.rejects(client.account.undelete(), (error) => isProblem(error) && error.status === 409 && error.code === 'account_not_deleted');
    });
  });
}
