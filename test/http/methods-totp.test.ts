// TOTP authenticators (issue rule 3; RFC 6238): several per account, enrolled pending and
// activated by a first valid code; any active one's code passes; a code is accepted once per
// time step; one step of drift either way; secrets sealed at rest; removal needs step-up.
// Codes are computed from the server's manual clock with otpauth; nothing sleeps.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { URI } from 'otpauth';
import { backends } from '../helpers/backends.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { uniqueName } from '../helpers/client.js';
import type { Device } from '../helpers/client.js';
import { STEP_UP_HEADER, activeTotp, downloadRecoveryKey, enrollTotp, stepUp, totpCode, wrongTotpCode } from '../helpers/step-up.js';
import { expectProblem } from '../helpers/problem.js';

const TOTP = '/api/v1/auth/totp';
const RECOVERY_BEGIN = '/api/v1/auth/recovery/begin';

for (const backend of backends) {
  describe(`methods: TOTP authenticators [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      // Recovery is the TOTP-gated action here; its per-client limit must not get in the way.
      t = await startTestApp(backend, { RECOVERY_PER_CLIENT_PER_HOUR: '100000', RECOVERY_KEY_HOLDER_PER_HOUR: '100000' });
    });
    after(() => t.close());

    const confirm = (device: Device, id: string, code: unknown) => t.client.as(device, 'POST', `${TOTP}/${id}/confirm`, { body: { code } });
    const totpRow = (id: string) => t.store.handle.db.selectFrom('totp_authenticators').selectAll().where('id', '=', id).executeTakeFirst();
    const recover = (device: Device, recoveryKey: string, code?: string) =>
      t.client.call('POST', RECOVERY_BEGIN, { body: { username: device.username, recovery_key: recoveryKey, ...(code === undefined ? {} : { totp_code: code }) } });

    it('enrolls a pending authenticator: base32 secret and an otpauth:// URI for authenticator apps', async () => {
      const device = await t.client.signUp(uniqueName('enroll'));
      const res = await t.client.as(device, 'POST', TOTP, { body: { name: 'Phone' }, headers: { [STEP_UP_HEADER]: await stepUp(t.client, device), 'idempotency-key': randomUUID() } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.headers.get('cache-control'), 'no-store');
      const body = res.body;
      assert.match(body.id, /^totp_/);
      assert.equal(body.name, 'Phone');
      assert.equal(body.active, false);
      assert.equal(body.confirmed_at, null);
      assert.equal(body.last_used_at, null);
      assert.match(body.secret, /^[A-Z2-7]{32,}$/, 'base32, at least 160 bits');

      const uri = new URL(body.otpauth_uri);
      assert.equal(uri.protocol, 'otpauth:');
      assert.equal(uri.host, 'totp');
      assert.equal(decodeURIComponent(uri.pathname), `/VID:${device.username}`);
      assert.ok(body.otpauth_uri.startsWith(`otpauth://totp/VID:${device.username}?`), body.otpauth_uri);
      assert.equal(uri.searchParams.get('issuer'), 'VID');
      assert.equal(uri.searchParams.get('secret'), body.secret);
      for (const [name, value] of [['algorithm', 'SHA1'], ['digits', '6'], ['period', '30']]) {
        const given = uri.searchParams.get(name!);
        assert.ok(given === null || given === value, `${name}=${given}`);
      }
      // What an authenticator app reads from the QR code generates the codes the server accepts.
      const parsed = URI.parse(body.otpauth_uri);
      assert.equal(parsed.issuer, 'VID');
      assert.equal(parsed.label, device.username);
      assert.equal(parsed.secret.base32, body.secret);
      assert.equal((parsed as { generate(o: { timestamp: number }): string }).generate({ timestamp: t.clock.now() }), totpCode(body.secret, t.clock.now()));
    });

    it('lists authenticators without secrets, only the caller\'s', async () => {
      const device = await t.client.signUp(uniqueName('list'));
      const a = await enrollTotp(t.client, device, 'Phone');
      const b = await activeTotp(t.client, device, t.clock.now(), 'Tablet');
      const stranger = await t.client.signUp(uniqueName('stranger'));
      await enrollTotp(t.client, stranger, 'Theirs');

      const res = await t.client.as(device, 'GET', TOTP);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.data.map((x: any) => [x.id, x.name, x.active]).sort(), [[a.id, 'Phone', false], [b.id, 'Tablet', true]].sort());
      for (const entry of res.body.data) {
        assert.deepEqual(Object.keys(entry).sort(), ['active', 'confirmed_at', 'created_at', 'id', 'last_used_at', 'name', 'schema_version']);
      }
      const text = JSON.stringify(res.body);
      for (const secret of [a.secret, b.secret]) assert.ok(!text.includes(secret), 'no secret in the list');
      assert.ok(!text.includes('otpauth'));
    });

    it('confirming: a wrong code is 422 totp_code_invalid, malformed codes 400, a valid code activates', async () => {
      const device = await t.client.signUp(uniqueName('confirm'));
      const { id, secret } = await enrollTotp(t.client, device);
      const now = t.clock.now();

      expectProblem(await confirm(device, id, wrongTotpCode(secret, now)), 422, 'totp_code_invalid', 'wrong code');
      for (const malformed of ['12345', 'abcdef', '1234567', '12 345', '', 123456, null]) {
        expectProblem(await confirm(device, id, malformed), 400, 'validation_failed', `malformed ${JSON.stringify(malformed)}`);
      }
      expectProblem(await t.client.as(device, 'POST', `${TOTP}/${id}/confirm`, { body: {} }), 400, 'validation_failed', 'no code');
      const pending = await totpRow(id);
      assert.equal(pending!.active, 0, 'still pending after the refusals');
      assert.equal(pending!.last_step, null);

      const ok = await confirm(device, id, totpCode(secret, now));
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      assert.equal(ok.body.active, true);
      assert.equal(ok.body.confirmed_at, new Date(now).toISOString());
      assert.ok(!JSON.stringify(ok.body).includes(secret));
      expectProblem(await confirm(device, id, totpCode(secret, now + 30_000)), 409, 'totp_already_active');

      // Unknown ids and other accounts' ids are 404, never 403.
      const stranger = await t.client.signUp(uniqueName('stranger'));
      const theirs = await enrollTotp(t.client, stranger);
      expectProblem(await confirm(device, theirs.id, totpCode(theirs.secret, now)), 404, 'totp_not_found', 'another account\'s authenticator');
      expectProblem(await confirm(device, 'totp_unknown', totpCode(secret, now)), 404, 'totp_not_found', 'unknown id');
      assert.equal((await totpRow(theirs.id))!.active, 0, 'the other account\'s authenticator stays pending');
    });

    it('a code is accepted once per time step: the confirming code, or a recovery code, cannot be replayed', async () => {
      const device = await t.client.signUp(uniqueName('replay'));
      const recoveryKey = await downloadRecoveryKey(t.client, device);
      const { secret } = await activeTotp(t.client, device, t.clock.now());
      // The code that just confirmed the authenticator is spent for its time step.
      expectProblem(await recover(device, recoveryKey, totpCode(secret, t.clock.now())), 403, 'recovery_refused', 'the confirming code again');

      t.clock.advance(30_000);
      const code = totpCode(secret, t.clock.now());
      const first = await recover(device, recoveryKey, code);
      assert.equal(first.status, 200, JSON.stringify(first.body));
      expectProblem(await recover(device, recoveryKey, code), 403, 'recovery_refused', 'the same code twice');
      // An older step is not accepted after a newer one either (drift cannot be used to replay).
      expectProblem(await recover(device, recoveryKey, totpCode(secret, t.clock.now() - 30_000)), 403, 'recovery_refused', 'previous step after the current one');

      // Two simultaneous uses of one code: exactly one passes.
      t.clock.advance(30_000);
      const raced = totpCode(secret, t.clock.now());
      const results = await Promise.all([recover(device, recoveryKey, raced), recover(device, recoveryKey, raced)]);
      assert.deepEqual(results.map((r) => r.status).sort(), [200, 403], JSON.stringify(results.map((r) => r.body)));
      // The next time step brings a new code that works.
      t.clock.advance(30_000);
      assert.equal((await recover(device, recoveryKey, totpCode(secret, t.clock.now()))).status, 200);
    });

    it('allows one step of clock drift either way, not two', async () => {
      const cases: [string, number, number][] = [
        ['one step behind', -30_000, 200],
        ['one step ahead', 30_000, 200],
        ['two steps behind', -60_000, 422],
        ['two steps ahead', 60_000, 422],
      ];
      for (const [why, offset, status] of cases) {
        const device = await t.client.signUp(uniqueName('drift'));
        const { id, secret } = await enrollTotp(t.client, device);
        const now = t.clock.now();
        const code = totpCode(secret, now + offset);
        // A code of another step may collide with one in the window (1 in ~300 000): skip that draw.
        if (status === 422 && [-30_000, 0, 30_000].some((d) => totpCode(secret, now + d) === code)) continue;
        const res = await confirm(device, id, code);
        assert.equal(res.status, status, `${why}: ${JSON.stringify(res.body)}`);
        if (status === 422) assert.equal(res.body.code, 'totp_code_invalid');
      }
    });

    it('with two authenticators, either one\'s code passes; a pending one\'s does not', async () => {
      const device = await t.client.signUp(uniqueName('two'));
      const recoveryKey = await downloadRecoveryKey(t.client, device);
      const phone = await activeTotp(t.client, device, t.clock.now(), 'Phone');
      const tablet = await activeTotp(t.client, device, t.clock.now(), 'Tablet');
      const pending = await enrollTotp(t.client, device, 'Drawer');
      t.clock.advance(30_000);
      assert.equal((await recover(device, recoveryKey, totpCode(tablet.secret, t.clock.now()))).status, 200, 'the second authenticator\'s code');
      // Each authenticator keeps its own step: the phone's code of the same step still passes.
      assert.equal((await recover(device, recoveryKey, totpCode(phone.secret, t.clock.now()))).status, 200, 'the first authenticator\'s code');
      t.clock.advance(30_000);
      expectProblem(await recover(device, recoveryKey, totpCode(pending.secret, t.clock.now())), 403, 'recovery_refused', 'a pending authenticator\'s code');
      assert.equal((await recover(device, recoveryKey, totpCode(phone.secret, t.clock.now()))).status, 200);
    });

    it('removal needs a step-up; unknown and other accounts\' ids are 404 totp_not_found; nothing else changes', async () => {
      const device = await t.client.signUp(uniqueName('remove'));
      const mine = await activeTotp(t.client, device, t.clock.now(), 'Phone');
      const keep = await enrollTotp(t.client, device, 'Keep');
      const stranger = await t.client.signUp(uniqueName('stranger'));
      const theirs = await activeTotp(t.client, stranger, t.clock.now(), 'Theirs');
      const theirsBefore = await totpRow(theirs.id);

      const noStepUp = await t.client.as(device, 'DELETE', `${TOTP}/${mine.id}`);
      expectProblem(noStepUp, 403, 'step_up_required');
      assert.ok(await totpRow(mine.id), 'still there without a step-up');

      const del = (id: string) => stepUp(t.client, device).then((header) => t.client.as(device, 'DELETE', `${TOTP}/${id}`, { headers: { [STEP_UP_HEADER]: header } }));
      expectProblem(await del(theirs.id), 404, 'totp_not_found', 'another account\'s id');
      expectProblem(await del('totp_unknown'), 404, 'totp_not_found', 'unknown id');
      assert.deepEqual(await totpRow(theirs.id), theirsBefore, 'the other account\'s authenticator untouched');

      const removed = await del(mine.id);
      assert.equal(removed.status, 204, JSON.stringify(removed.body));
      assert.equal(await totpRow(mine.id), undefined);
      expectProblem(await del(mine.id), 404, 'totp_not_found', 'removed already');
      const list = await t.client.as(device, 'GET', TOTP);
      assert.deepEqual(list.body.data.map((x: { id: string }) => x.id), [keep.id]);
    });

    it('stores the secret sealed: the database holds no copy of the base32 secret', async () => {
      const device = await t.client.signUp(uniqueName('sealed'));
      const { id, secret } = await enrollTotp(t.client, device);
      const row = await totpRow(id);
      assert.ok(row);
      assert.match(row.secret_sealed, /^v2\.[A-Za-z0-9_-]{8}\./);
      for (const form of [secret, secret.toLowerCase(), Buffer.from(secret).toString('base64'), Buffer.from(secret).toString('base64url')]) {
        assert.ok(!row.secret_sealed.includes(form), 'the sealed column does not contain the secret');
      }
    });

    it('keeps no plaintext copy of the secret in the idempotency records either', async () => {
      // The secret is encrypted at rest (issue rule 3): the replay record of POST /auth/totp must
      // not hold it in clear for 24 hours.
      const device = await t.client.signUp(uniqueName('idemsecret'));
      const { secret } = await enrollTotp(t.client, device);
      const records = await t.store.handle.db.selectFrom('idempotency_records').selectAll().where('scope', 'like', `%${device.accountId}%`).execute();
      assert.ok(records.length > 0, 'the enrollment was recorded for replay');
      for (const record of records) {
        assert.ok(!String(record.body ?? '').includes(secret), `idempotency record ${record.scope} holds the TOTP secret in clear`);
      }
    });
  });
}
