// Passkey management (issue rule 2; PRODUCT §1 /auth/methods): list with recognisable names
// (provider from the AAGUID, device from the user agent), "this device" marked, rename with If-Match, add another passkey (step-up, Idempotency-Key), remove (step-up), never
// the last one — also when two removals race — and ids of other accounts answer like unknown ones.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { SoftwareAuthenticator } from '../helpers/authenticator.js';
import { uniqueName } from '../helpers/client.js';
import type { Device } from '../helpers/client.js';
import { STEP_UP_HEADER, addPasskey, addPasskeyDetailed, logInAs, signUpWith, stepUp } from '../helpers/step-up.js';
import { accountQueries } from '../../src/platform/store/accounts.js';
import { expectProblem } from '../helpers/problem.js';

const METHODS = '/api/v1/auth/methods';
const ADD_BEGIN = '/api/v1/auth/methods/passkeys/begin';
const ADD_FINISH = '/api/v1/auth/methods/passkeys/finish';
const GOOGLE_PASSWORD_MANAGER = 'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4';
const APPLE_PASSWORDS = 'fbfc3007-154e-4ecc-8c0b-6e020557d7bd';
const WINDOWS_HELLO = '08987058-cadc-4b81-b6e1-30de50dcbe96';
const CHROME_ON_MAC = 'adce0002-35bc-c60a-648b-0b25f1f05503';
const YUBIKEY_5_NFC = 'fa2b99dc-9e39-4257-8f92-4a30d23c4118';
// A provider whose published name is longer than a passkey name may be.
const ALLTHENTICATOR_IOS = '5ca1ab1e-1337-fa57-f1d0-a117e71ca702';
const UNKNOWN_AAGUID = '5ca1ab1e-0000-4000-8000-00000000c0de';
const CHROME_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const FIREFOX_UA = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const IPHONE_UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const ANDROID_UA = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';
const MAC_UA = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

for (const backend of backends) {
  describe(`methods: passkey management [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend);
    });
    after(() => t.close());

    const passkeyRows = (accountId: string) =>
      t.store.handle.db.selectFrom('passkeys').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
    const list = async (device: Device, query = '') => t.client.as(device, 'GET', `${METHODS}${query}`);
    const remove = async (device: Device, id: string, header?: string) =>
      t.client.as(device, 'DELETE', `${METHODS}/${id}`, { headers: { [STEP_UP_HEADER]: header ?? (await stepUp(t.client, device)) } });

    it('names a passkey after its authenticator model when the AAGUID is known', async () => {
      const device = await t.client.signUp(uniqueName('gpm'), new SoftwareAuthenticator({ attestation: 'packed', aaguid: GOOGLE_PASSWORD_MANAGER }));
      const res = await list(device);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.data.length, 1);
      assert.equal(res.body.data[0].name, 'Google Password Manager');
    });

    it('names a passkey after the device (user agent) when the AAGUID is unknown or zero', async () => {
      const unknown = await signUpWith(t.client, uniqueName('ua'), { authenticator: new SoftwareAuthenticator({ aaguid: UNKNOWN_AAGUID }), headers: { 'user-agent': CHROME_UA } });
      const res = await list(unknown);
      assert.equal(res.body.data[0].name, 'Passkey on Windows');
      const zero = await signUpWith(t.client, uniqueName('ua0'), { headers: { 'user-agent': FIREFOX_UA } });
      assert.equal((await list(zero)).body.data[0].name, 'Passkey on Linux');
      const nothing = await signUpWith(t.client, uniqueName('ua1'), { headers: { 'user-agent': '' } });
      assert.equal((await list(nothing)).body.data[0].name, 'Passkey', 'no provider, no device: no user-agent text either');
    });

    it('names a passkey "provider on device", leaving the device out where the provider says it, or the passkey lives elsewhere', async () => {
      const named = async (authenticator: SoftwareAuthenticator, userAgent: string) => {
        const device = await signUpWith(t.client, uniqueName('named'), { authenticator, headers: { 'user-agent': userAgent } });
        return (await list(device)).body.data[0].name as string;
      };
      assert.equal(await named(new SoftwareAuthenticator({ aaguid: APPLE_PASSWORDS }), IPHONE_UA), 'Apple Passwords on iPhone');
      assert.equal(await named(new SoftwareAuthenticator({ aaguid: GOOGLE_PASSWORD_MANAGER }), ANDROID_UA), 'Google Password Manager on Android phone');
      assert.equal(await named(new SoftwareAuthenticator({ aaguid: WINDOWS_HELLO }), CHROME_UA), 'Windows Hello', 'the provider names the system');
      assert.equal(await named(new SoftwareAuthenticator({ aaguid: CHROME_ON_MAC }), MAC_UA), 'Chrome on Mac');
      // A security key, or a phone answering over hybrid, is not the browser's device.
      assert.equal(await named(new SoftwareAuthenticator({ aaguid: YUBIKEY_5_NFC, attachment: 'cross-platform', transports: ['usb', 'nfc'] }), MAC_UA), 'YubiKey 5 Series with NFC');
      assert.equal(await named(new SoftwareAuthenticator({ aaguid: APPLE_PASSWORDS, attachment: 'cross-platform', transports: ['hybrid', 'internal'] }), CHROME_UA), 'Apple Passwords');
      assert.equal(await named(new SoftwareAuthenticator({ attachment: 'cross-platform', transports: ['usb'] }), CHROME_UA), 'Security key');
      assert.equal(await named(new SoftwareAuthenticator({ attachment: 'cross-platform', transports: ['hybrid'] }), CHROME_UA), 'Passkey on another device');
      // Never the user-agent string.
      for (const ua of [CHROME_UA, IPHONE_UA, 'curl/8.4.0 (x86_64-pc-linux-gnu)']) assert.ok(!(await named(new SoftwareAuthenticator(), ua)).includes('Mozilla'));
    });

    it('cuts a default name to the length a rename may set, so the rename box can hold it', async () => {
      const device = await signUpWith(t.client, uniqueName('long'), { authenticator: new SoftwareAuthenticator({ aaguid: ALLTHENTICATOR_IOS }), headers: { 'user-agent': IPHONE_UA } });
      const [passkey] = (await list(device)).body.data;
      assert.ok([...passkey.name].length <= 64, passkey.name);
      assert.match(passkey.name, /^Allthenticator iOS App.*…$/);
      const same = await t.client.as(device, 'PATCH', `${METHODS}/${passkey.id}`, { body: { name: passkey.name }, headers: { 'if-match': '"1"' } });
      assert.equal(same.status, 200, JSON.stringify(same.body));
    });

    it('marks the passkey this session signed in with as this device (current), and only that one', async () => {
      const device = await t.client.signUp(uniqueName('current'));
      const currentOf = async (as: Device) => (await list(as)).body.data.filter((p: { current: boolean }) => p.current).map((p: { id: string }) => p.id);
      const [signUpPasskey] = (await list(device)).body.data;
      assert.deepEqual(await currentOf(device), [signUpPasskey.id], 'the sign-up session signed in with its new passkey');
      const added = await addPasskeyDetailed(t.client, device);
      assert.equal(added.passkey.current, false, 'added from this session, but not what it signed in with');
      assert.deepEqual(await currentOf(device), [signUpPasskey.id]);
      const laptop = await logInAs(t.client, device, { authenticator: added.authenticator });
      assert.deepEqual(await currentOf(laptop), [added.passkey.id], 'the other device signed in with the added passkey');
      assert.deepEqual(await currentOf(device), [signUpPasskey.id], 'each session sees its own');
      const renamed = await t.client.as(laptop, 'PATCH', `${METHODS}/${added.passkey.id}`, { body: { name: 'Laptop' }, headers: { 'if-match': '"1"' } });
      assert.equal(renamed.body.current, true);
      // Once removed, its sessions mark nothing.
      assert.equal((await remove(device, added.passkey.id)).status, 204);
      assert.deepEqual(await currentOf(laptop), []);
    });

    it('lists passkeys in pages with no duplicates, and only the caller\'s', async () => {
      const device = await signUpWith(t.client, uniqueName('page'), { headers: { 'user-agent': CHROME_UA } });
      await addPasskey(t.client, device);
      await addPasskey(t.client, device);
      const stranger = await t.client.signUp(uniqueName('stranger'));

      const first = await list(device, '?limit=2');
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(first.body.data.length, 2);
      assert.equal(first.body.has_more, true);
      assert.equal(typeof first.body.next_cursor, 'string');
      const second = await list(device, `?limit=2&cursor=${first.body.next_cursor}`);
      assert.equal(second.body.data.length, 1);
      assert.equal(second.body.has_more, false);
      assert.equal(second.body.next_cursor, null);
      const ids = [...first.body.data, ...second.body.data].map((p: { id: string }) => p.id);
      assert.equal(new Set(ids).size, 3);
      assert.deepEqual(new Set(ids), new Set((await passkeyRows(device.accountId)).map((r) => r.id)));
      for (const id of ids) assert.match(id, /^pk_/);
      const everything = await list(device);
      assert.deepEqual(everything.body.data.map((p: { id: string }) => p.id), ids, 'the pages in order are the whole list');

      const signUpRow = (await passkeyRows(device.accountId)).find((r) => r.credential_id === device.authenticator.credentials[0]!.id);
      const own = everything.body.data.find((p: any) => p.id === signUpRow!.id);
      assert.equal(own.dpop_jkt, device.key.jkt, 'the sign-up passkey is bound to the sign-up device key');
      assert.equal(own.name, 'Passkey on Windows');
      assert.deepEqual(Object.keys(own).sort(), ['backed_up', 'backup_eligible', 'created_at', 'current', 'dpop_jkt', 'flagged', 'id', 'last_used_at', 'name', 'schema_version', 'version']);
      assert.equal(own.backup_eligible, true);
      assert.equal(own.backed_up, true);
      assert.equal(own.flagged, false);
      assert.equal(own.schema_version, 1);

      const strangers = await list(stranger);
      assert.equal(strangers.body.data.length, 1);
      assert.ok(!ids.includes(strangers.body.data[0].id));

      expectProblem(await list(device, '?cursor=not-a-cursor'), 400, 'invalid_cursor');
      expectProblem(await list(device, '?limit=0'), 400, 'validation_failed');
      expectProblem(await list(device, '?limit=201'), 400, 'validation_failed');
    });

    it('renames with If-Match: 428 without, 412 when stale, 200 with the new ETag', async () => {
      const device = await t.client.signUp(uniqueName('rename'));
      const [passkey] = (await list(device)).body.data;
      const path = `${METHODS}/${passkey.id}`;
      assert.equal(passkey.version, 1);

      expectProblem(await t.client.as(device, 'PATCH', path, { body: { name: 'Work laptop' } }), 428, 'precondition_required');
      expectProblem(await t.client.as(device, 'PATCH', path, { body: { name: 'Work laptop' }, headers: { 'if-match': '"2"' } }), 412, 'version_mismatch');
      expectProblem(await t.client.as(device, 'PATCH', path, { body: { name: 'Work laptop' }, headers: { 'if-match': 'W/"1"' } }), 412, 'version_mismatch');
      assert.equal((await passkeyRows(device.accountId))[0]!.name, passkey.name, 'refusals changed nothing');

      const renamed = await t.client.as(device, 'PATCH', path, { body: { name: 'Work laptop' }, headers: { 'if-match': '"1"' } });
      assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
      assert.equal(renamed.body.name, 'Work laptop');
      assert.equal(renamed.body.version, 2);
      assert.equal(renamed.headers.get('etag'), '"2"');
      assert.equal((await list(device)).body.data[0].name, 'Work laptop');
      // The old tag is stale now.
      expectProblem(await t.client.as(device, 'PATCH', path, { body: { name: 'Stale' }, headers: { 'if-match': '"1"' } }), 412, 'version_mismatch');
      // Names are 1 to 64 characters once trimmed, without control or bidi characters, each refusal
      // pointing at the name.
      for (const name of ['', '   ', 'x'.repeat(65), 'Bell\u0007', 'evil\u202Egnp.exe']) {
        const refused = await t.client.as(device, 'PATCH', path, { body: { name }, headers: { 'if-match': '"2"' } });
        expectProblem(refused, 400, 'validation_failed', JSON.stringify(name));
        assert.ok(refused.body.errors.some((e: { path: string }) => e.path.endsWith('/name')), JSON.stringify(refused.body.errors));
      }
      assert.equal((await passkeyRows(device.accountId))[0]!.name, 'Work laptop');
      const trimmed = await t.client.as(device, 'PATCH', path, { body: { name: '  Phone   in  pocket ' }, headers: { 'if-match': '"2"' } });
      assert.equal(trimmed.status, 200, JSON.stringify(trimmed.body));
      assert.equal(trimmed.body.name, 'Phone in pocket');
    });

    it('adds a second passkey (step-up, Idempotency-Key) that can then log in', async () => {
      const device = await t.client.signUp(uniqueName('add'));
      const added = await addPasskeyDetailed(t.client, device, { headers: { 'user-agent': FIREFOX_UA } });
      assert.equal(added.finish.status, 201);
      assert.match(added.passkey.id, /^pk_/);
      assert.equal(added.passkey.name, 'Passkey on Linux');
      assert.equal(added.passkey.dpop_jkt, device.key.jkt, 'bound to the key of the device that added it');
      assert.equal(added.finish.headers.get('etag'), `"${added.passkey.version}"`);
      assert.equal((await list(device)).body.data.length, 2);

      const login = await t.client.logIn(added.authenticator);
      assert.equal(login.status, 200, JSON.stringify(login.body));
      const me = await t.client.call('GET', '/api/v1/me', { key: login.key, token: login.body.access_token });
      assert.equal(me.status, 200);
      assert.equal(me.body.id, device.accountId);
    });

    it('adding needs an Idempotency-Key on begin and finish, and replays without a second passkey', async () => {
      const device = await t.client.signUp(uniqueName('idem'));
      expectProblem(await t.client.as(device, 'POST', ADD_BEGIN, { headers: { [STEP_UP_HEADER]: await stepUp(t.client, device) } }), 400, 'idempotency_key_required');

      const beginKey = randomUUID();
      const begin = await t.client.as(device, 'POST', ADD_BEGIN, { headers: { 'idempotency-key': beginKey, [STEP_UP_HEADER]: await stepUp(t.client, device) } });
      assert.equal(begin.status, 200, JSON.stringify(begin.body));
      assert.equal(begin.body.options.user.id, (await t.store.use(accountQueries).findById(device.accountId))!.user_handle, 'the account\'s user handle');
      assert.deepEqual(begin.body.options.excludeCredentials.map((c: { id: string }) => c.id), [device.authenticator.credentials[0]!.id]);
      const beginReplay = await t.client.as(device, 'POST', ADD_BEGIN, { headers: { 'idempotency-key': beginKey } });
      assert.equal(beginReplay.status, 200);
      assert.equal(beginReplay.headers.get('vid-idempotent-replay'), 'true');
      assert.equal(beginReplay.body.ceremony_id, begin.body.ceremony_id);

      const authenticator = new SoftwareAuthenticator();
      const credential = await authenticator.createCredential(begin.body.options, t.client.publicOrigin);
      const body = { ceremony_id: begin.body.ceremony_id, credential };
      expectProblem(await t.client.as(device, 'POST', ADD_FINISH, { body }), 400, 'idempotency_key_required');
      const finishKey = randomUUID();
      const finish = await t.client.as(device, 'POST', ADD_FINISH, { body, headers: { 'idempotency-key': finishKey } });
      assert.equal(finish.status, 201, JSON.stringify(finish.body));
      const replay = await t.client.as(device, 'POST', ADD_FINISH, { body, headers: { 'idempotency-key': finishKey } });
      assert.equal(replay.status, 201);
      assert.equal(replay.headers.get('vid-idempotent-replay'), 'true');
      assert.deepEqual(replay.body, finish.body);
      expectProblem(await t.client.as(device, 'POST', ADD_FINISH, { body: { ...body, ceremony_id: 'cer_other' }, headers: { 'idempotency-key': finishKey } }), 409, 'idempotency_key_reused');
      assert.equal((await passkeyRows(device.accountId)).length, 2, 'one passkey added, however often the request came');

      // The ceremony was spent: a new key does not finish it again.
      expectProblem(await t.client.as(device, 'POST', ADD_FINISH, { body, headers: { 'idempotency-key': randomUUID() } }), 400, 'ceremony_invalid');
    });

    it('an add ceremony finishes only in the session that began it', async () => {
      const device = await t.client.signUp(uniqueName('addses'));
      const other = await logInAs(t.client, device);
      const begin = await t.client.as(device, 'POST', ADD_BEGIN, { headers: { 'idempotency-key': randomUUID(), [STEP_UP_HEADER]: await stepUp(t.client, device) } });
      assert.equal(begin.status, 200);
      const credential = await new SoftwareAuthenticator().createCredential(begin.body.options, t.client.publicOrigin);
      expectProblem(
        await t.client.as(other, 'POST', ADD_FINISH, { body: { ceremony_id: begin.body.ceremony_id, credential }, headers: { 'idempotency-key': randomUUID() } }),
        400,
        'ceremony_invalid',
      );
      assert.equal((await passkeyRows(device.accountId)).length, 1);
    });

    it('removes one of two passkeys (204); the removed one no longer logs in; the last one cannot go (409 last_method)', async () => {
      const device = await t.client.signUp(uniqueName('remove'));
      const added = await addPasskeyDetailed(t.client, device);
      const res = await remove(device, added.passkey.id);
      assert.equal(res.status, 204, JSON.stringify(res.body));
      const left = (await list(device)).body.data;
      assert.equal(left.length, 1);
      assert.notEqual(left[0].id, added.passkey.id);
      expectProblem(await remove(device, added.passkey.id), 404, 'method_not_found', 'removed already');
      const login = await t.client.logIn(added.authenticator);
      assert.equal(login.status, 401);
      assert.equal(login.body.code, 'passkey_not_recognized');

      expectProblem(await remove(device, left[0].id), 409, 'last_method');
      assert.deepEqual((await passkeyRows(device.accountId)).map((r) => r.id), [left[0].id]);
      assert.equal((await t.client.logIn(device.authenticator)).status, 200, 'the last passkey still works');
    });

    it('two concurrent removals of the two passkeys: exactly one 204 and one 409 last_method, one passkey left', async () => {
      for (let round = 0; round < 4; round++) {
        const device = await t.client.signUp(uniqueName('race'));
        const added = await addPasskeyDetailed(t.client, device);
        const [first] = (await passkeyRows(device.accountId)).filter((r) => r.id !== added.passkey.id);
        // Both step-ups prepared beforehand, each signed by the passkey its request removes, so
        // whichever removal commits first never invalidates the other request's step-up.
        const headerFirst = await stepUp(t.client, device);
        const headerSecond = await stepUp(t.client, device, { authenticator: added.authenticator });
        const results = await Promise.all([remove(device, first!.id, headerFirst), remove(device, added.passkey.id, headerSecond)]);
        const statuses = results.map((r) => r.status).sort();
        assert.deepEqual(statuses, [204, 409], `round ${round}: ${results.map((r) => JSON.stringify(r.body)).join(' ')}`);
        assert.equal(results.find((r) => r.status === 409)!.body.code, 'last_method');
        const left = await passkeyRows(device.accountId);
        assert.equal(left.length, 1, `round ${round}: one passkey remains`);
        const kept = results[0]!.status === 204 ? added.passkey.id : first!.id;
        assert.equal(left[0]!.id, kept);
        const removedLogged = await t.store.handle.db.selectFrom('security_log').select('id').where('account_id', '=', device.accountId).where('kind', '=', 'passkey_removed').execute();
        assert.equal(removedLogged.length, 1);
      }
    });

    it('unknown ids and other accounts\' ids are 404 method_not_found (never 403), and nothing changes', async () => {
      const alice = await t.client.signUp(uniqueName('alice'));
      await addPasskey(t.client, alice);
      const bob = await t.client.signUp(uniqueName('bob'));
      const bobAdded = await addPasskeyDetailed(t.client, bob);
      const bobBefore = await passkeyRows(bob.accountId);
      const aliceBefore = await passkeyRows(alice.accountId);

      for (const id of [bobAdded.passkey.id, bobBefore[0]!.id, 'pk_doesnotexist', 'nothing-like-an-id']) {
        expectProblem(await remove(alice, id), 404, 'method_not_found', `DELETE ${id}`);
        expectProblem(await t.client.as(alice, 'PATCH', `${METHODS}/${id}`, { body: { name: 'Mine now' }, headers: { 'if-match': '"1"' } }), 404, 'method_not_found', `PATCH ${id}`);
      }
      expectProblem(await remove(alice, 'x'.repeat(65)), 400, 'validation_failed', 'over-long id');
      assert.deepEqual(await passkeyRows(bob.accountId), bobBefore, 'Bob\'s passkeys untouched');
      assert.deepEqual(
        (await passkeyRows(alice.accountId)).map(({ counter, last_used_at, ...rest }) => rest),
        aliceBefore.map(({ counter, last_used_at, ...rest }) => rest),
        'Alice\'s passkeys untouched (only step-up counters moved)',
      );
      const logged = await t.store.handle.db.selectFrom('security_log').select('kind').where('account_id', 'in', [alice.accountId, bob.accountId]).where('kind', 'in', ['passkey_removed', 'passkey_renamed']).execute();
      assert.deepEqual(logged, []);
    });
  });
}
