// The client's key methods against the real server (PRODUCT §7): a device bundle stored and
// replaced with If-Match remembered from the last answer, read by an active contact under an
// opaque id after contact.keys.changed, and the server share behind a step-up.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { clientFor, signUp } from '../../client/test/harness.js';
import { isProblem } from '../../client/src/index.js';
import type { ContactKey } from '../../client/src/index.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';

const material = () => randomBytes(48).toString('base64url');

for (const backend of backends) {
  describe(`client: keys [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend);
    });
    after(async () => {
      await t.close();
    });

    it('stores a device bundle, replaces it, shows it to a contact, and keeps the share behind a step-up', async () => {
      const alice = clientFor(t);
      const bob = clientFor(t);
      const aliceName = uniqueName('ckeys');
      await signUp(alice, aliceName);
      await signUp(bob, uniqueName('creader'));
      const profile = await alice.client.profiles.create({ name: 'Work' });
      const contact = await bob.client.contacts.subscribe(aliceName);
      await alice.client.subscriptions.approve(contact.id, profile.id);
      const methodId = (await alice.client.request('GET', '/auth/methods')).data[0]!.id;

      const first = material();
      const stored = await alice.client.keys.devices.put(methodId, first);
      assert.deepEqual([stored.method_id, stored.bundle, stored.version], [methodId, first, 1]);
      assert.equal(alice.calls('PUT', `/keys/devices/${methodId}`)[0]!.headers.get('if-match'), null, 'the first PUT creates');
      const second = material();
      const replaced = await alice.client.keys.devices.put(methodId, second);
      assert.equal(replaced.version, 2);
      assert.equal(alice.calls('PUT', `/keys/devices/${methodId}`)[1]!.headers.get('if-match'), '"1"', 'If-Match from the last answer');
      assert.deepEqual(await alice.client.keys.devices.get(methodId), replaced);
      const mine = [];
      for await (const bundle of alice.client.keys.devices.list()) mine.push(bundle);
      assert.deepEqual(mine, [replaced]);
      await assert.rejects(alice.client.keys.devices.put(methodId, 'not base64url!'), (error) => isProblem(error, 'invalid_key_bundle') && error.status === 400);

      // Bob was told, and reads the bundle under an id that is not Alice's passkey id.
      const { data: signals } = await bob.client.events.list();
      const resource = `/contacts/${contact.id}/keys`;
      assert.equal(signals.filter((s) => s.kind === 'contact.keys.changed' && s.resource === resource).length, 2);
      const seen: ContactKey[] = [];
      for await (const key of bob.client.contacts.keys(contact.id)) seen.push(key);
      assert.deepEqual(seen, [{ id: replaced.id, bundle: second, updated_at: replaced.updated_at }]);
      assert.notEqual(seen[0]!.id, methodId);

      // The share: refused without a step-up, then created, replaced (If-Match remembered), read, deleted.
      const stepUp = alice.getAssertion;
      await assert.rejects(alice.client.keys.share.get(), (error) => isProblem(error, 'step_up_required'));
      await assert.rejects(alice.client.keys.share.get({ stepUp }), (error) => isProblem(error, 'key_share_not_found') && error.status === 404);
      const share = material();
      assert.equal((await alice.client.keys.share.put(share, { stepUp })).version, 1);
      assert.equal((await alice.client.keys.share.put(material(), { stepUp })).version, 2);
      const read = await alice.client.keys.share.get({ stepUp });
      assert.equal(read.version, 2);
      assert.notEqual(read.share, share);
      await alice.client.keys.share.remove({ stepUp });
      await assert.rejects(alice.client.keys.share.get({ stepUp }), (error) => isProblem(error, 'key_share_not_found'));

      await alice.client.keys.devices.remove(methodId);
      await assert.rejects(alice.client.keys.devices.get(methodId), (error) => isProblem(error, 'key_bundle_not_found'));
      const after = [];
      for await (const key of bob.client.contacts.keys(contact.id)) after.push(key);
      assert.deepEqual(after, []);
    });
  });
}
