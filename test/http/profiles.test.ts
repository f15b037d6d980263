// PRODUCT §3: profiles (limits, names, one public, If-Match), exposures (order, labels, field
// deletion), the card (one shape, strong ETag, 304, updated_at moves only with what it shows)
// and profiles.changed signals; every refusal a problem with nothing half-written.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';
import type { Device } from '../helpers/client.js';
import { expectProblem } from '../helpers/problem.js';

const API = '/api/v1';

for (const backend of backends) {
  describe(`profiles, exposures and the card [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend);
    });
    after(() => t.close());

    const createProfile = (device: Device, body: unknown, key = randomUUID()) =>
      t.client.as(device, 'POST', `${API}/profiles`, { body, headers: { 'idempotency-key': key } });
    const createField = async (device: Device, body: unknown) => {
      const res = await t.client.as(device, 'POST', `${API}/me/fields`, { body, headers: { 'idempotency-key': randomUUID() } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body;
    };
    const expose = (device: Device, profileId: string, fieldId: string, body: unknown = {}) =>
      t.client.as(device, 'PUT', `${API}/profiles/${profileId}/exposures/${fieldId}`, { body });
    const preview = (device: Device, profileId: string, headers: Record<string, string> = {}) =>
      t.client.as(device, 'GET', `${API}/profiles/${profileId}/preview`, { headers });
    const signals = async (device: Device, kind: string) =>
      (await t.store.handle.db.selectFrom('events').select('seq').where('account_id', '=', device.accountId).where('kind', '=', kind).execute()).length;
    const profileCount = async (device: Device) =>
      (await t.store.handle.db.selectFrom('profiles').select('id').where('account_id', '=', device.accountId).execute()).length;

    it('creates, lists, reads, renames and deletes profiles, with ETags, If-Match and a signal for each change', async () => {
      const device = await t.client.signUp(uniqueName('prof'));
      const created = await createProfile(device, { name: '  Work ', description: 'Colleagues and clients' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const work = created.body;
      assert.match(work.id, /^prf_/);
      assert.deepEqual(
        { name: work.name, description: work.description, public: work.public, field_count: work.field_count, subscriber_count: work.subscriber_count, version: work.version, schema_version: work.schema_version },
        { name: 'Work', description: 'Colleagues and clients', public: false, field_count: 0, subscriber_count: 0, version: 1, schema_version: 1 },
      );
      assert.equal(created.headers.get('etag'), '"1"');
      assert.equal(created.headers.get('location'), `${API}/profiles/${work.id}`);
      t.clock.advance(1);
      await createProfile(device, { name: 'Family' });

      const list = await t.client.as(device, 'GET', `${API}/profiles`);
      assert.equal(list.status, 200);
      assert.deepEqual(list.body.data.map((p: any) => p.name), ['Work', 'Family']);
      assert.equal(list.body.has_more, false);

      const read = await t.client.as(device, 'GET', `${API}/profiles/${work.id}`);
      assert.deepEqual(read.body, work);
      assert.equal(read.headers.get('etag'), '"1"');

      expectProblem(await t.client.as(device, 'PATCH', `${API}/profiles/${work.id}`, { body: { name: 'Office' } }), 428, 'precondition_required');
      expectProblem(await t.client.as(device, 'PATCH', `${API}/profiles/${work.id}`, { body: { name: 'Office' }, headers: { 'if-match': '"7"' } }), 412, 'version_mismatch');
      const renamed = await t.client.as(device, 'PATCH', `${API}/profiles/${work.id}`, { body: { name: 'Office', description: null }, headers: { 'if-match': '"1"' } });
      assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
      assert.equal(renamed.body.name, 'Office');
      assert.equal(renamed.body.description, null);
      assert.equal(renamed.body.version, 2);
      assert.equal(renamed.headers.get('etag'), '"2"');

      const before = await signals(device, 'profiles.changed');
      expectProblem(await t.client.as(device, 'DELETE', `${API}/profiles/${work.id}`), 428, 'precondition_required');
      expectProblem(await t.client.as(device, 'DELETE', `${API}/profiles/${work.id}`, { headers: { 'if-match': '"1"' } }), 412, 'version_mismatch');
      assert.equal((await t.client.as(device, 'DELETE', `${API}/profiles/${work.id}`, { headers: { 'if-match': '"2"' } })).status, 204);
      expectProblem(await t.client.as(device, 'GET', `${API}/profiles/${work.id}`), 404, 'profile_not_found');
      assert.equal(await signals(device, 'profiles.changed'), before + 1, 'one signal for the delete, none for the refusals');
      assert.equal(await signals(device, 'profiles.changed'), 4, 'create, create, rename, delete');
    });

    it('refuses a 21st profile, a name taken ignoring case, a second public profile and bad names, writing nothing', async () => {
      const device = await t.client.signUp(uniqueName('proflim'));
      assert.equal((await createProfile(device, { name: 'Public', public: true })).status, 201);
      expectProblem(await createProfile(device, { name: 'pUBLIC' }), 409, 'profile_name_taken');
      expectProblem(await createProfile(device, { name: 'Second public', public: true }), 409, 'public_profile_exists');
      expectProblem(await createProfile(device, { name: '   ' }), 400, 'validation_failed');
      expectProblem(await createProfile(device, { name: 'x'.repeat(65) }), 400, 'validation_failed');
      expectProblem(await createProfile(device, { name: 'Ok', description: 'd'.repeat(281) }), 400, 'validation_failed');
      expectProblem(await createProfile(device, { name: 'Bidi \u202E trick' }), 400, 'validation_failed');
      expectProblem(await t.client.as(device, 'POST', `${API}/profiles`, { body: { name: 'No key' } }), 400, 'idempotency_key_required');
      assert.equal(await profileCount(device), 1);

      const other = (await createProfile(device, { name: 'Other' })).body;
      expectProblem(await t.client.as(device, 'PATCH', `${API}/profiles/${other.id}`, { body: { name: 'PUBLIC' }, headers: { 'if-match': '"1"' } }), 409, 'profile_name_taken');
      expectProblem(await t.client.as(device, 'PATCH', `${API}/profiles/${other.id}`, { body: { public: true }, headers: { 'if-match': '"1"' } }), 409, 'public_profile_exists');
      assert.equal((await t.client.as(device, 'GET', `${API}/profiles/${other.id}`)).body.version, 1, 'refused patches changed nothing');
      // Renaming to the same name in another case is no clash with itself.
      assert.equal((await t.client.as(device, 'PATCH', `${API}/profiles/${other.id}`, { body: { name: 'OTHER' }, headers: { 'if-match': '"1"' } })).status, 200);

      for (let i = 2; i < 20; i++) assert.equal((await createProfile(device, { name: `P${i}` })).status, 201);
      assert.equal(await profileCount(device), 20);
      expectProblem(await createProfile(device, { name: 'One too many' }), 409, 'profile_limit');
      assert.equal(await profileCount(device), 20);
    });

    it('lets exactly one of concurrent creates with one name, and of two public ones, win', async () => {
      const device = await t.client.signUp(uniqueName('profrace'));
      const same = await Promise.all([createProfile(device, { name: 'Twin' }), createProfile(device, { name: 'twin' })]);
      assert.deepEqual(same.map((r) => r.status).sort(), [201, 409]);
      const publics = await Promise.all([createProfile(device, { name: 'A', public: true }), createProfile(device, { name: 'B', public: true })]);
      assert.deepEqual(publics.map((r) => r.status).sort(), [201, 409]);
      assert.equal(await profileCount(device), 2);
    });

    it('answers 404 for another account\'s profiles and fields, as for unknown ones', async () => {
      const alice = await t.client.signUp(uniqueName('alice'));
      const mallory = await t.client.signUp(uniqueName('mallory'));
      const secret = (await createProfile(alice, { name: 'Secret' })).body;
      const aliceField = await createField(alice, { type: 'email', value: 'alice@example.com' });
      const mine = (await createProfile(mallory, { name: 'Mine' })).body;
      for (const [method, path] of [
        ['GET', `/profiles/${secret.id}`], ['GET', `/profiles/${secret.id}/preview`], ['GET', `/profiles/${secret.id}/exposures`],
        ['PUT', `/profiles/${secret.id}/exposures/${aliceField.id}`], ['DELETE', `/profiles/${secret.id}/exposures/${aliceField.id}`],
      ] as const) {
        expectProblem(await t.client.as(mallory, method, `${API}${path}`, method === 'PUT' ? { body: {} } : {}), 404, 'profile_not_found');
      }
      expectProblem(await t.client.as(mallory, 'PATCH', `${API}/profiles/${secret.id}`, { body: { name: 'x' }, headers: { 'if-match': '"1"' } }), 404, 'profile_not_found');
      expectProblem(await t.client.as(mallory, 'DELETE', `${API}/profiles/${secret.id}`, { headers: { 'if-match': '"1"' } }), 404, 'profile_not_found');
      expectProblem(await expose(mallory, mine.id, aliceField.id), 404, 'field_not_found');
      expectProblem(await expose(mallory, mine.id, 'fld_doesnotexist0000000000'), 404, 'field_not_found');
      expectProblem(await t.client.as(mallory, 'DELETE', `${API}/profiles/${mine.id}?move_to=${secret.id}`, { headers: { 'if-match': '"1"' } }), 404, 'profile_not_found');
      expectProblem(await t.client.as(mallory, 'DELETE', `${API}/profiles/${mine.id}?move_to=${mine.id}`, { headers: { 'if-match': '"1"' } }), 400, 'validation_failed');
      assert.equal((await t.client.as(alice, 'GET', `${API}/profiles/${secret.id}`)).body.version, 1);
    });

    it('orders exposures, moves them, labels them, and refuses positions out of range', async () => {
      const device = await t.client.signUp(uniqueName('expose'));
      const profile = (await createProfile(device, { name: 'Work' })).body;
      const phone = await createField(device, { type: 'phone', value: '+49 30 22732152', label: 'office' });
      const email = await createField(device, { type: 'email', value: 'ada@example.com' });
      const url = await createField(device, { type: 'url', value: 'https://example.com' });

      const first = await expose(device, profile.id, phone.id);
      assert.equal(first.status, 201, JSON.stringify(first.body));
      assert.deepEqual(first.body, { field_id: phone.id, label: null, position: 0, schema_version: 1 });
      assert.equal((await expose(device, profile.id, email.id)).body.position, 1);
      const atFront = await expose(device, profile.id, url.id, { position: 0, label: 'Homepage' });
      assert.equal(atFront.status, 201);
      const order = async () => (await t.client.as(device, 'GET', `${API}/profiles/${profile.id}/exposures`)).body.data;
      assert.deepEqual((await order()).map((e: any) => [e.field_id, e.position]), [[url.id, 0], [phone.id, 1], [email.id, 2]]);

      const moved = await expose(device, profile.id, url.id, { position: 2 });
      assert.equal(moved.status, 200);
      assert.deepEqual(moved.body, { field_id: url.id, label: 'Homepage', position: 2, schema_version: 1 });
      assert.deepEqual((await order()).map((e: any) => e.field_id), [phone.id, email.id, url.id]);
      assert.equal((await expose(device, profile.id, phone.id, { label: 'Desk' })).body.label, 'Desk');
      assert.equal((await expose(device, profile.id, phone.id, { label: '' })).body.label, null);

      expectProblem(await expose(device, profile.id, phone.id, { position: 3 }), 400, 'validation_failed');
      const stranger = await createField(device, { type: 'nickname', value: 'Countess' });
      const outOfRange = await expose(device, profile.id, stranger.id, { position: 4 });
      expectProblem(outOfRange, 400, 'validation_failed');
      assert.equal(outOfRange.body.errors[0].code, 'position_out_of_range');
      expectProblem(await expose(device, profile.id, phone.id, { label: 'l'.repeat(65) }), 400, 'validation_failed');
      expectProblem(await expose(device, profile.id, phone.id, { position: -1 }), 400, 'validation_failed');
      assert.equal((await order()).length, 3, 'refusals added nothing');
      assert.equal((await t.client.as(device, 'GET', `${API}/profiles/${profile.id}`)).body.field_count, 3);

      assert.equal((await t.client.as(device, 'DELETE', `${API}/profiles/${profile.id}/exposures/${email.id}`)).status, 204);
      expectProblem(await t.client.as(device, 'DELETE', `${API}/profiles/${profile.id}/exposures/${email.id}`), 404, 'exposure_not_found');
      assert.deepEqual((await order()).map((e: any) => [e.field_id, e.position]), [[phone.id, 0], [url.id, 1]]);

      // Deleting a field removes its exposures, and the order closes up.
      assert.equal((await t.client.as(device, 'DELETE', `${API}/me/fields/${phone.id}`, { headers: { 'if-match': '"1"' } })).status, 204);
      assert.deepEqual((await order()).map((e: any) => [e.field_id, e.position]), [[url.id, 0]]);
      assert.deepEqual((await preview(device, profile.id)).body.fields.map((f: any) => f.id), [url.id]);
    });

    it('previews the card: only the exposed fields in order, labels, a strong ETag and 304', async () => {
      const device = await t.client.signUp(uniqueName('card'));
      await t.client.as(device, 'PATCH', `${API}/me`, { body: { display_name: 'Ada Lovelace' }, headers: { 'if-match': '"1"' } });
      const profile = (await createProfile(device, { name: 'Friends' })).body;
      const phone = await createField(device, { type: 'phone', value: '+44 20 7946 0958', label: 'mobile' });
      const address = await createField(device, { type: 'postal_address', country: 'GB', value: { street_lines: ['10 Downing Street'], locality: 'London', postal_code: 'sw1a 2aa' } });
      await createField(device, { type: 'email', value: 'hidden@example.com' });
      await expose(device, profile.id, address.id, { label: 'Home' });
      await expose(device, profile.id, phone.id, { position: 0 });

      const card = await preview(device, profile.id);
      assert.equal(card.status, 200, JSON.stringify(card.body));
      assert.deepEqual(Object.keys(card.body).sort(), ['changed', 'fields', 'owner', 'schema_version', 'updated_at']);
      assert.deepEqual(card.body.changed, ['phone'], 'the last change put the phone on the card; the hidden email is no kind of it');
      assert.deepEqual(card.body.owner, { username: device.username, display_name: 'Ada Lovelace' });
      assert.deepEqual(card.body.fields.map((f: any) => [f.id, f.type, f.label]), [[phone.id, 'phone', 'mobile'], [address.id, 'postal_address', 'Home']]);
      assert.equal(card.body.fields[0].value, '+442079460958');
      assert.equal(card.body.fields[1].country, 'GB');
      assert.equal(card.body.fields[1].value.postal_code, 'SW1A 2AA');
      assert.ok(!JSON.stringify(card.body).includes('hidden@example.com'), 'an unexposed field never leaves through the card');
      const etag = card.headers.get('etag')!;
      assert.match(etag, /^"[A-Za-z0-9_-]{20,}"$/);
      const again = await preview(device, profile.id, { 'if-none-match': etag });
      assert.equal(again.status, 304);
      assert.equal(again.body, null);
      assert.equal((await preview(device, profile.id, { 'if-none-match': '"other"' })).status, 200);
    });

    it('moves the card\'s updated_at and ETag exactly when what it shows changes', async () => {
      const device = await t.client.signUp(uniqueName('cardtime'));
      const profile = (await createProfile(device, { name: 'Team' })).body;
      const hidden = await createField(device, { type: 'url', value: 'https://hidden.example' });
      const title = await createField(device, { type: 'job_title', value: 'Engineer', label: 'role' });
      await expose(device, profile.id, title.id, { label: 'Position' });
      const read = async () => {
        const res = await preview(device, profile.id);
        return { at: res.body.updated_at as string, etag: res.headers.get('etag')!, body: res.body };
      };
      let last = await read();
      const same = async (why: string) => {
        t.clock.advance(1000);
        const now = await read();
        assert.equal(now.at, last.at, why);
        assert.equal(now.etag, last.etag, why);
      };
      const moved = async (why: string) => {
        t.clock.advance(1000);
        const now = await read();
        assert.notEqual(now.at, last.at, why);
        assert.notEqual(now.etag, last.etag, why);
        assert.equal(new Date(now.at).getTime(), t.clock.now() - 1000, `${why}: updated_at is the time of the change`);
        last = now;
      };

      const patchField = (field: any, body: unknown) => t.client.as(device, 'PATCH', `${API}/me/fields/${field.id}`, { body, headers: { 'if-match': `"${field.version}"` } });
      const renamed = await t.client.as(device, 'PATCH', `${API}/profiles/${profile.id}`, { body: { name: 'Team B', description: 'x' }, headers: { 'if-match': '"1"' } });
      assert.equal(renamed.status, 200, 'exposures are resources of their own: showing a field left the profile at version 1');
      await same('the profile\'s name is not on the card');
      assert.equal((await patchField(hidden, { value: 'https://still-hidden.example' })).status, 200);
      await same('an unexposed field changed');
      const relabelled = await patchField(title, { label: 'job' });
      assert.equal(relabelled.status, 200);
      await same('the exposure\'s label overrides the field\'s');
      await t.client.as(device, 'PATCH', `${API}/me`, { body: { locale: 'de' }, headers: { 'if-match': '"1"' } });
      await same('the locale is not on the card');

      t.clock.advance(1000);
      assert.equal((await patchField(relabelled.body, { value: 'Principal Engineer' })).status, 200);
      await moved('the exposed value changed');
      t.clock.advance(1000);
      await t.client.as(device, 'PATCH', `${API}/me`, { body: { display_name: 'Grace' }, headers: { 'if-match': '"2"' } });
      await moved('the display name changed');
      t.clock.advance(1000);
      await expose(device, profile.id, title.id, { label: null });
      await moved('the exposure\'s label went: the field\'s own shows');
      t.clock.advance(1000);
      await expose(device, profile.id, hidden.id);
      await moved('a field was exposed');
      t.clock.advance(1000);
      await expose(device, profile.id, hidden.id, { position: 0 });
      await moved('the order changed');
    });

    it('signals profiles.changed when an exposed field changes, and not for fields no profile shows', async () => {
      const device = await t.client.signUp(uniqueName('profsig'));
      const profile = (await createProfile(device, { name: 'Shown' })).body;
      const shown = await createField(device, { type: 'nickname', value: 'Ada' });
      const unshown = await createField(device, { type: 'pronouns', value: 'she/her' });
      await expose(device, profile.id, shown.id);
      const count = () => signals(device, 'profiles.changed');
      const start = await count();
      await t.client.as(device, 'PATCH', `${API}/me/fields/${unshown.id}`, { body: { value: 'they/them' }, headers: { 'if-match': '"1"' } });
      assert.equal(await count(), start);
      await t.client.as(device, 'PATCH', `${API}/me/fields/${shown.id}`, { body: { value: 'Countess' }, headers: { 'if-match': '"1"' } });
      assert.equal(await count(), start + 1);
      await t.client.as(device, 'DELETE', `${API}/me/fields/${shown.id}`, { headers: { 'if-match': '"2"' } });
      assert.equal(await count(), start + 2);
      assert.equal((await t.client.as(device, 'GET', `${API}/profiles/${profile.id}`)).body.field_count, 0);
    });

    it('deletes a profile with move_to naming another of the owner\'s profiles', async () => {
      const device = await t.client.signUp(uniqueName('moveto'));
      const a = (await createProfile(device, { name: 'A' })).body;
      const b = (await createProfile(device, { name: 'B' })).body;
      assert.equal((await t.client.as(device, 'DELETE', `${API}/profiles/${a.id}?move_to=${b.id}`, { headers: { 'if-match': '"1"' } })).status, 204);
      assert.deepEqual((await t.client.as(device, 'GET', `${API}/profiles`)).body.data.map((p: any) => p.id), [b.id]);
    });
  });
}
