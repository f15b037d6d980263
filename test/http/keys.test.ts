// PRODUCT §7 keys: a bundle per passkey (PUT creates, If-Match after; 404 for anyone else's
// passkey), opaque base64url ≤ 8 KiB (400 invalid_key_bundle), gone with its passkey; contacts
// read the bundles of active contacts under ids that are not method ids; the server share with a
// step-up on every route; keys.changed to the owner and contact.keys.changed to exactly the
// active subscribers; the export lists bundles and leaves the share out, the purge erases both;
// key material never reaches the logs.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { withLoggedApp } from '../helpers/logged-app.js';
import type { CallResult, Device } from '../helpers/client.js';
import { API, startSocialApp } from '../helpers/social.js';
import type { Social } from '../helpers/social.js';
import { STEP_UP_HEADER, addPasskeyDetailed, logInAs, stepUp } from '../helpers/step-up.js';
import { expectProblem } from '../helpers/problem.js';

const DAY = 86_400_000;
/** Key material as a client makes it: random bytes, base64url without padding. */
const material = (bytes = 48) => randomBytes(bytes).toString('base64url');

for (const backend of backends) {
  describe(`keys [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    let s: Social;
    before(async () => ({ t, s } = await startSocialApp(backend)));
    after(() => t.close());

    const devices = (device: Device, methodId = '') => `${API}/keys/devices${methodId ? `/${methodId}` : ''}`;
    const putBundle = (device: Device, methodId: string, bundle: unknown, ifMatch?: string) =>
      t.client.as(device, 'PUT', devices(device, methodId), { body: { bundle }, headers: ifMatch ? { 'if-match': ifMatch } : {} });
    const removeBundle = (device: Device, methodId: string, ifMatch?: string) =>
      t.client.as(device, 'DELETE', devices(device, methodId), { headers: ifMatch ? { 'if-match': ifMatch } : {} });
    const firstMethod = async (device: Device): Promise<string> => (await s.get(device, '/auth/methods')).body.data[0].id;
    const share = async (device: Device, method: 'GET' | 'PUT' | 'DELETE', options: { body?: unknown; ifMatch?: string; stepUp?: boolean } = {}) =>
      t.client.as(device, method, `${API}/keys/share`, {
        ...(options.body === undefined ? {} : { body: options.body }),
        headers: { ...(options.ifMatch ? { 'if-match': options.ifMatch } : {}), ...(options.stepUp === false ? {} : { [STEP_UP_HEADER]: await stepUp(t.client, device) }) },
      });
    const kinds = async (device: Device, since: number, kind?: string) =>
      (await s.signals(device)).slice(since).filter(([k]) => kind === undefined || k === kind);
    const created = (res: CallResult) => {
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body;
    };
    const removePasskey = async (device: Device, id: string) =>
      t.client.as(device, 'DELETE', `${API}/auth/methods/${id}`, { headers: { [STEP_UP_HEADER]: await stepUp(t.client, device) } });

    it('stores, reads, lists, replaces and deletes a device bundle, with ETag and If-Match', async () => {
      const alice = await s.person('alice');
      const methodId = await firstMethod(alice);
      assert.deepEqual((await s.get(alice, '/keys/devices')).body, { data: [], next_cursor: null, has_more: false });
      expectProblem(await s.get(alice, `/keys/devices/${methodId}`), 404, 'key_bundle_not_found');
      const before = (await s.signals(alice)).length;

      const first = material();
      const put = await putBundle(alice, methodId, first);
      const bundle = created(put);
      assert.match(bundle.id, /^key_[A-Za-z0-9_-]{22}$/);
      assert.deepEqual({ method_id: bundle.method_id, bundle: bundle.bundle, version: bundle.version, schema_version: bundle.schema_version }, { method_id: methodId, bundle: first, version: 1, schema_version: 1 });
      assert.equal(put.headers.get('etag'), '"1"');
      assert.equal(put.headers.get('location'), `${API}/keys/devices/${methodId}`);
      assert.equal(put.headers.get('cache-control'), 'no-store');

      // After creation every change needs the version it replaces.
      expectProblem(await putBundle(alice, methodId, material()), 428, 'precondition_required');
      expectProblem(await putBundle(alice, methodId, material(), '"7"'), 412, 'version_mismatch');
      expectProblem(await putBundle(alice, methodId, material(), 'W/"1"'), 412, 'version_mismatch');
      const second = material();
      const replaced = await putBundle(alice, methodId, second, '"1"');
      assert.equal(replaced.status, 200, JSON.stringify(replaced.body));
      assert.deepEqual([replaced.body.id, replaced.body.bundle, replaced.body.version, replaced.headers.get('etag')], [bundle.id, second, 2, '"2"']);
      assert.ok(Date.parse(replaced.body.updated_at) >= Date.parse(bundle.updated_at));
      const signalsAfterChange = (await s.signals(alice)).length;
      // The same bundle again changes nothing: no new version, nobody told.
      const same = await putBundle(alice, methodId, second, '"2"');
      assert.equal(same.status, 200);
      assert.equal(same.body.version, 2);
      assert.equal((await s.signals(alice)).length, signalsAfterChange);

      const read = await s.get(alice, `/keys/devices/${methodId}`);
      assert.equal(read.status, 200);
      assert.equal(read.headers.get('etag'), '"2"');
      assert.deepEqual(read.body, replaced.body);
      assert.deepEqual((await s.get(alice, '/keys/devices')).body.data, [replaced.body]);

      expectProblem(await removeBundle(alice, methodId), 428, 'precondition_required');
      expectProblem(await removeBundle(alice, methodId, '"1"'), 412, 'version_mismatch');
      assert.equal((await removeBundle(alice, methodId, '"2"')).status, 204);
      expectProblem(await s.get(alice, `/keys/devices/${methodId}`), 404, 'key_bundle_not_found');
      expectProblem(await removeBundle(alice, methodId, '"2"'), 404, 'key_bundle_not_found');
      // Creating names no version: If-Match on a bundle that does not exist cannot hold.
      expectProblem(await putBundle(alice, methodId, material(), '"2"'), 412, 'version_mismatch');
      const again = created(await putBundle(alice, methodId, material()));
      assert.notEqual(again.id, bundle.id, 'a new bundle, a new id');
      assert.equal(again.version, 1);

      // Create, replace, delete, create: each told the owner's devices, where to pull.
      assert.deepEqual(await kinds(alice, before, 'keys.changed'), Array(4).fill(['keys.changed', '/keys/devices']));
      assert.deepEqual(await kinds(alice, before, 'contact.keys.changed'), [], 'nobody subscribes to Alice');
    });

    it('refuses bundles that are not opaque base64url or longer than 8 KiB, with its own code', async () => {
      const alice = await s.person('alice');
      const methodId = await firstMethod(alice);
      for (const bad of ['', 'YWJj=', 'YW+j', 'YW/j', 'a b', 'héllo', 'YWJj\n', 'A'.repeat(8193)]) {
        const res = await putBundle(alice, methodId, bad);
        expectProblem(res, 400, 'invalid_key_bundle');
        assert.equal(res.body.errors[0].path, '/bundle');
        assert.equal(res.body.errors[0].code, bad.length > 8192 ? 'too_long' : 'not_base64url');
      }
      expectProblem(await putBundle(alice, methodId, 42), 400, 'validation_failed');
      expectProblem(await t.client.as(alice, 'PUT', devices(alice, methodId), { body: {} }), 400, 'validation_failed');
      expectProblem(await t.client.as(alice, 'PUT', devices(alice, methodId), { body: { bundle: 'abc', extra: 1 } }), 400, 'validation_failed');
      expectProblem(await s.get(alice, `/keys/devices/${methodId}`), 404, 'key_bundle_not_found');
      // Exactly 8 KiB is fine, and comes back byte for byte.
      const largest = material(6144);
      assert.equal(largest.length, 8192);
      assert.equal(created(await putBundle(alice, methodId, largest)).bundle, largest);
      expectProblem(await putBundle(alice, methodId, `${largest}A`, '"1"'), 400, 'invalid_key_bundle');
      assert.equal((await s.get(alice, `/keys/devices/${methodId}`)).body.bundle, largest);
    });

    it('answers another account\'s passkey like an unknown one: 404, never 403, nothing written', async () => {
      const alice = await s.person('alice');
      const mallory = await s.person('mallory');
      const methodId = await firstMethod(alice);
      const bundle = created(await putBundle(alice, methodId, material()));
      for (const id of [methodId, 'pk_AAAAAAAAAAAAAAAAAAAAAA', 'nope']) {
        expectProblem(await putBundle(mallory, id, material()), 404, 'method_not_found');
        expectProblem(await putBundle(mallory, id, material(), '"1"'), 404, 'method_not_found');
        expectProblem(await s.get(mallory, `/keys/devices/${id}`), 404, 'method_not_found');
        expectProblem(await removeBundle(mallory, id, '"1"'), 404, 'method_not_found');
      }
      assert.deepEqual((await s.get(mallory, '/keys/devices')).body.data, []);
      assert.deepEqual((await s.get(alice, `/keys/devices/${methodId}`)).body, bundle);
      assert.deepEqual(await kinds(mallory, 0, 'keys.changed'), [], 'refusals signal nothing');
    });

    it('lets one of two racing first PUTs create the bundle; the other is told to send If-Match', async () => {
      const alice = await s.person('alice');
      const methodId = await firstMethod(alice);
      const answers = await Promise.all([putBundle(alice, methodId, material()), putBundle(alice, methodId, material())]);
      assert.deepEqual(answers.map((a) => a.status).sort(), [201, 428], JSON.stringify(answers.map((a) => a.body)));
      const rows = await t.store.handle.db.selectFrom('key_bundles').select('id').where('account_id', '=', alice.accountId).execute();
      assert.equal(rows.length, 1);
    });

    /** Alice with two passkeys, a bundle on each; Bob and Carol active on two profiles; the rest in every other state. */
    async function world() {
      const alice = await s.person('alice');
      const work = await s.profile(alice, 'Work');
      const family = await s.profile(alice, 'Family');
      const bob = await s.person('bob');
      const carol = await s.person('carol');
      const bobContact = await s.connect(bob, alice, work.id);
      const carolContact = await s.connect(carol, alice, family.id);
      const pending = await s.person('pending');
      const pendingContact = created(await s.subscribe(pending, alice)).id as string;
      const revoked = await s.person('revoked');
      const revokedContact = await s.connect(revoked, alice, work.id);
      assert.equal((await s.post(alice, `/subscriptions/${revokedContact}/revoke`, {})).status, 200);
      const ended = await s.person('ended');
      const endedContact = await s.connect(ended, alice, work.id);
      assert.equal((await t.client.as(ended, 'DELETE', `${API}/contacts/${endedContact}`)).status, 204);
      const denied = await s.person('denied');
      const deniedContact = created(await s.subscribe(denied, alice)).id as string;
      assert.equal((await s.post(alice, `/subscriptions/${deniedContact}/deny`, {})).status, 200);
      const stranger = await s.person('stranger');
      // Alice subscribes to Bob too: being his subscriber is not being hers.
      const bobWork = await s.profile(bob, 'Bob work');
      await s.connect(alice, bob, bobWork.id);
      return { alice, work, family, bob, carol, bobContact, carolContact, pending, pendingContact, revoked, revokedContact, ended, endedContact, denied, deniedContact, stranger };
    }

    it('shows an active contact the owner\'s bundles under opaque ids, and nobody else', async () => {
      const w = await world();
      const { alice, bob, carol } = w;
      const laptop = await firstMethod(alice);
      const phone = (await addPasskeyDetailed(t.client, alice)).passkey.id as string;
      const laptopBundle = created(await putBundle(alice, laptop, material()));
      t.clock.advance(1000); // oldest first: the phone's bundle is a second younger
      const phoneBundle = created(await putBundle(alice, phone, material()));

      const seen = await s.get(bob, `/contacts/${w.bobContact}/keys`);
      assert.equal(seen.status, 200, JSON.stringify(seen.body));
      assert.equal(seen.headers.get('cache-control'), 'no-store');
      assert.equal(seen.body.has_more, false);
      assert.deepEqual(seen.body.data, [laptopBundle, phoneBundle].map((b) => ({ id: b.id, bundle: b.bundle, updated_at: b.updated_at })));
      for (const key of seen.body.data) {
        assert.deepEqual(Object.keys(key).sort(), ['bundle', 'id', 'updated_at']);
        assert.match(key.id, /^key_/);
        assert.ok(![laptop, phone].includes(key.id), 'a contact never learns the passkey ids');
      }
      assert.ok(!JSON.stringify(seen.body).includes(laptop) && !JSON.stringify(seen.body).includes(phone));
      // Whichever profile they see, active subscribers see the same bundles; pages are stable.
      assert.deepEqual((await s.get(carol, `/contacts/${w.carolContact}/keys`)).body.data, seen.body.data);
      const page1 = await s.get(carol, `/contacts/${w.carolContact}/keys?limit=1`);
      assert.equal(page1.body.has_more, true);
      const page2 = await s.get(carol, `/contacts/${w.carolContact}/keys?limit=1&cursor=${page1.body.next_cursor}`);
      assert.deepEqual([...page1.body.data, ...page2.body.data], seen.body.data);
      expectProblem(await s.get(carol, `/contacts/${w.carolContact}/keys?cursor=not-a-cursor`), 400, 'invalid_cursor');

      expectProblem(await s.get(w.pending, `/contacts/${w.pendingContact}/keys`), 403, 'contact_not_active');
      expectProblem(await s.get(w.revoked, `/contacts/${w.revokedContact}/keys`), 403, 'contact_not_active');
      expectProblem(await s.get(w.denied, `/contacts/${w.deniedContact}/keys`), 403, 'contact_not_active');
      // Ended and removed from the list: gone, as the contacts module answers.
      expectProblem(await s.get(w.ended, `/contacts/${w.endedContact}/keys`), 404, 'contact_not_found');
      // Someone else's contact id, or none at all: 404, nothing leaked.
      expectProblem(await s.get(w.stranger, `/contacts/${w.bobContact}/keys`), 404, 'contact_not_found');
      expectProblem(await s.get(alice, `/contacts/${w.bobContact}/keys`), 404, 'contact_not_found');
      expectProblem(await s.get(bob, '/contacts/sub_AAAAAAAAAAAAAAAAAAAAAA/keys'), 404, 'contact_not_found');
    });

    it('tells exactly the active subscribers when a bundle is created, changed or deleted; the share tells nobody else', async () => {
      const w = await world();
      const { alice } = w;
      const methodId = await firstMethod(alice);
      const everyone = [alice, w.bob, w.carol, w.pending, w.revoked, w.ended, w.denied, w.stranger];
      const counts = async () => Promise.all(everyone.map(async (d) => (await s.signals(d)).length));
      const since = await counts();
      /** The contact.keys.changed each person got since the start, by name. */
      const contactSignals = async () => {
        const out: Record<string, string[]> = {};
        for (const [i, name] of ['alice', 'bob', 'carol', 'pending', 'revoked', 'ended', 'denied', 'stranger'].entries()) {
          out[name] = (await kinds(everyone[i]!, since[i]!, 'contact.keys.changed')).map(([, resource]) => resource);
        }
        return out;
      };
      const expected = (n: number) => ({
        alice: [], bob: Array(n).fill(`/contacts/${w.bobContact}/keys`), carol: Array(n).fill(`/contacts/${w.carolContact}/keys`),
        pending: [], revoked: [], ended: [], denied: [], stranger: [],
      });

      created(await putBundle(alice, methodId, material()));
      assert.deepEqual(await contactSignals(), expected(1), 'created');
      assert.equal((await putBundle(alice, methodId, material(), '"1"')).status, 200);
      assert.deepEqual(await contactSignals(), expected(2), 'changed');
      expectProblem(await putBundle(alice, methodId, material(), '"1"'), 412, 'version_mismatch');
      expectProblem(await putBundle(alice, methodId, 'not base64url!'), 400, 'invalid_key_bundle');
      assert.deepEqual(await contactSignals(), expected(2), 'refusals tell nobody');
      assert.equal((await removeBundle(alice, methodId, '"2"')).status, 204);
      assert.deepEqual(await contactSignals(), expected(3), 'deleted');
      assert.deepEqual(await kinds(alice, since[0]!, 'keys.changed'), Array(3).fill(['keys.changed', '/keys/devices']));

      // The share is private: the owner's devices hear of it, nobody else.
      const before = await counts();
      created(await share(alice, 'PUT', { body: { share: material() } }));
      assert.equal((await share(alice, 'PUT', { body: { share: material() }, ifMatch: '"1"' })).status, 200);
      assert.equal((await share(alice, 'DELETE', { ifMatch: '"2"' })).status, 204);
      const after = await counts();
      assert.deepEqual(after.slice(1), before.slice(1), 'no subscriber hears of the share');
      assert.deepEqual((await kinds(alice, before[0]!)).map(([kind]) => kind), ['keys.changed', 'keys.changed', 'keys.changed']);
    });

    it('removes a bundle with its passkey, in the same transaction, and tells the owner and the active subscribers', async () => {
      const w = await world();
      const { alice, bob } = w;
      const laptop = await firstMethod(alice);
      const added = await addPasskeyDetailed(t.client, alice);
      const phone = added.passkey.id as string;
      const spare = (await addPasskeyDetailed(t.client, alice)).passkey.id as string;
      const laptopBundle = created(await putBundle(alice, laptop, material()));
      created(await putBundle(alice, phone, material()));
      const aliceBefore = (await s.signals(alice)).length;
      const bobBefore = (await s.signals(bob)).length;
      const pendingBefore = (await s.signals(w.pending)).length;

      assert.equal((await removePasskey(alice, phone)).status, 204);
      expectProblem(await s.get(alice, `/keys/devices/${phone}`), 404, 'method_not_found');
      assert.deepEqual((await s.get(alice, '/keys/devices')).body.data.map((b: any) => b.method_id), [laptop]);
      assert.deepEqual((await s.get(bob, `/contacts/${w.bobContact}/keys`)).body.data.map((b: any) => b.id), [laptopBundle.id]);
      const rows = await t.store.handle.db.selectFrom('key_bundles').select('method_id').where('method_id', '=', phone).execute();
      assert.equal(rows.length, 0);
      assert.deepEqual(await kinds(alice, aliceBefore, 'keys.changed'), [['keys.changed', '/keys/devices']]);
      assert.deepEqual(await kinds(alice, aliceBefore, 'methods.changed'), [['methods.changed', '/auth/methods']]);
      assert.deepEqual(await kinds(bob, bobBefore), [['contact.keys.changed', `/contacts/${w.bobContact}/keys`]]);
      assert.equal((await s.signals(w.pending)).length, pendingBefore, 'a pending subscriber hears nothing');

      // A passkey without a bundle goes without a keys signal.
      const bobMid = (await s.signals(bob)).length;
      assert.equal((await removePasskey(alice, spare)).status, 204);
      assert.deepEqual(await kinds(bob, bobMid), []);
      assert.deepEqual(await kinds(alice, aliceBefore, 'keys.changed'), [['keys.changed', '/keys/devices']]);
      // A refused removal (the last passkey) keeps the bundle.
      assert.equal((await removePasskey(alice, laptop)).status, 409);
      assert.equal((await s.get(alice, `/keys/devices/${laptop}`)).status, 200);
    });

    it('keeps the server share behind a step-up on every route, with If-Match after creation', async () => {
      const alice = await s.person('alice');
      for (const method of ['GET', 'PUT', 'DELETE'] as const) {
        expectProblem(await share(alice, method, { stepUp: false, ...(method === 'PUT' ? { body: { share: material() } } : {}), ...(method === 'DELETE' ? { ifMatch: '"1"' } : {}) }), 403, 'step_up_required');
      }
      expectProblem(await share(alice, 'GET'), 404, 'key_share_not_found');
      expectProblem(await share(alice, 'DELETE', { ifMatch: '"1"' }), 404, 'key_share_not_found');
      expectProblem(await share(alice, 'PUT', { body: { share: material() }, ifMatch: '"1"' }), 412, 'version_mismatch');
      for (const bad of ['', 'abc=', 'a.b', 'A'.repeat(8193)]) {
        const res = await share(alice, 'PUT', { body: { share: bad } });
        expectProblem(res, 400, 'invalid_key_share');
        assert.equal(res.body.errors[0].path, '/share');
      }

      const first = material(32);
      const put = await share(alice, 'PUT', { body: { share: first } });
      assert.equal(put.status, 201, JSON.stringify(put.body));
      assert.deepEqual(Object.keys(put.body).sort(), ['schema_version', 'share', 'updated_at', 'version']);
      assert.deepEqual([put.body.share, put.body.version, put.headers.get('etag'), put.headers.get('cache-control')], [first, 1, '"1"', 'no-store']);
      expectProblem(await share(alice, 'PUT', { body: { share: material() } }), 428, 'precondition_required');
      expectProblem(await share(alice, 'PUT', { body: { share: material() }, ifMatch: '"5"' }), 412, 'version_mismatch');
      const second = material(32);
      const replaced = await share(alice, 'PUT', { body: { share: second }, ifMatch: '"1"' });
      assert.equal(replaced.status, 200);
      assert.equal(replaced.body.version, 2);
      const read = await share(alice, 'GET');
      assert.equal(read.status, 200);
      assert.equal(read.headers.get('etag'), '"2"');
      assert.deepEqual(read.body, replaced.body);
      assert.equal(read.body.share, second);

      // Another account has its own (no) share.
      expectProblem(await share(await s.person('mallory'), 'GET'), 404, 'key_share_not_found');

      expectProblem(await share(alice, 'DELETE'), 428, 'precondition_required');
      expectProblem(await share(alice, 'DELETE', { ifMatch: '"1"' }), 412, 'version_mismatch');
      assert.equal((await share(alice, 'DELETE', { ifMatch: '"2"' })).status, 204);
      expectProblem(await share(alice, 'GET'), 404, 'key_share_not_found');
    });

    it('exports the bundles and leaves the share out; the purge erases both', async () => {
      const alice = await s.person('alice');
      let bob = await s.person('bob');
      const work = await s.profile(alice, 'Work');
      const contactId = await s.connect(bob, alice, work.id);
      const methodId = await firstMethod(alice);
      const bundle = created(await putBundle(alice, methodId, material()));
      const secretShare = material(32);
      created(await share(alice, 'PUT', { body: { share: secretShare } }));

      const exported = await t.client.as(alice, 'GET', `${API}/account/export`, { headers: { [STEP_UP_HEADER]: await stepUp(t.client, alice) } });
      assert.equal(exported.status, 200, JSON.stringify(exported.body));
      assert.deepEqual(exported.body.key_bundles, [{ method_id: methodId, bundle: bundle.bundle, created_at: bundle.created_at, updated_at: bundle.updated_at, version: 1 }]);
      assert.ok(!JSON.stringify(exported.body).includes(secretShare), 'the server share is not in the export');
      const leftOut = exported.body.left_out.find((entry: any) => entry.table === 'key_shares');
      assert.match(leftOut?.reason ?? '', /split/);

      // While Alice's account is deleted her contacts get no keys; after the purge nothing of hers remains.
      const deletion = await t.client.as(alice, 'DELETE', `${API}/account`, { headers: { [STEP_UP_HEADER]: await stepUp(t.client, alice) } });
      assert.equal(deletion.status, 202, JSON.stringify(deletion.body));
      expectProblem(await s.get(bob, `/contacts/${contactId}/keys`), 410, 'account_deleted');
      t.clock.advance(31 * DAY);
      const run = await t.services.purge.run(t.clock.now());
      assert.equal(run.failed, 0);
      const db = t.store.handle.db;
      for (const table of ['key_bundles', 'key_shares']) {
        const rows = await (db as any).selectFrom(table).select('account_id').where('account_id', '=', alice.accountId).execute();
        assert.equal(rows.length, 0, `${table} still holds rows of the purged account`);
      }
      bob = await logInAs(t.client, bob);
      expectProblem(await s.get(bob, `/contacts/${contactId}/keys`), 403, 'contact_not_active');
    });
  });

  describe(`key material never reaches the logs [${backend.name}]`, { skip: backend.skip }, () => {
    it('bundles and shares, stored, read, listed, refused: no log line holds them', async () => {
      await withLoggedApp(backend, async ({ lines, client, s }) => {
        const alice = await s.person('logged');
        const bob = await s.person('reader');
        const profile = await s.profile(alice, 'Work');
        const contactId = await s.connect(bob, alice, profile.id);
        const methodId = (await s.get(alice, '/auth/methods')).body.data[0].id;
        const bundle = material(64);
        const share = material(64);
        const path = `${API}/keys/devices/${methodId}`;
        const stepped = async () => ({ [STEP_UP_HEADER]: await stepUp(client, alice) });

        assert.equal((await client.as(alice, 'PUT', path, { body: { bundle } })).status, 201);
        await client.as(alice, 'PUT', path, { body: { bundle: `${bundle}=` }, headers: { 'if-match': '"1"' } });
        await client.as(alice, 'PUT', path, { body: { bundle: `${bundle}${'A'.repeat(8192)}` }, headers: { 'if-match': '"1"' } });
        await client.as(alice, 'PUT', path, { body: { bundle }, headers: { 'if-match': '"9"' } });
        await client.as(alice, 'GET', path);
        await s.get(alice, '/keys/devices');
        assert.equal((await s.get(bob, `/contacts/${contactId}/keys`)).body.data[0].bundle, bundle);
        assert.equal((await client.as(alice, 'PUT', `${API}/keys/share`, { body: { share }, headers: await stepped() })).status, 201);
        await client.as(alice, 'PUT', `${API}/keys/share`, { body: { share: `${share}!` }, headers: { ...(await stepped()), 'if-match': '"1"' } });
        assert.equal((await client.as(alice, 'GET', `${API}/keys/share`, { headers: await stepped() })).body.share, share);
        assert.ok(lines.length > 20, 'the server logged the requests');
        assert.ok(lines.some((line) => line.includes('invalid_key_bundle')), 'the refusal was logged, without the bundle');
        for (const line of lines) {
          assert.ok(!line.includes(bundle), `a log line holds the bundle: ${line.slice(0, 300)}`);
          assert.ok(!line.includes(share), `a log line holds the share: ${line.slice(0, 300)}`);
        }
      });
    });
  });
}
