// Step-up (issue rule 1; PRODUCT §1 "Step-up"): POST /auth/step-up/begin and the VID-Step-Up
// header — a user-verified assertion bound to the caller's session, single use, 5 minutes.
// Without it every sensitive route answers 403 step_up_required and changes nothing.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { SoftwareAuthenticator } from '../helpers/authenticator.js';
import { uniqueName } from '../helpers/client.js';
import type { CallOptions, CallResult, Device } from '../helpers/client.js';
import { STEP_UP_BEGIN, STEP_UP_HEADER, addPasskeyDetailed, beginStepUp, encodeStepUp, enrollTotp, logInAs, stepUp } from '../helpers/step-up.js';
import { expectProblem } from '../helpers/problem.js';

const RECOVERY_KEY = '/api/v1/auth/recovery-key';

for (const backend of backends) {
  describe(`step-up: POST /auth/step-up/begin and the VID-Step-Up header [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend);
    });
    after(() => t.close());

    function expectStepUpRequired(res: CallResult, why: string): void {
      expectProblem(res, 403, 'step_up_required', why);
    }

    const passkeyCount = async (accountId: string) =>
      Number((await t.store.handle.db.selectFrom('passkeys').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow()).n);
    const totpCount = async (accountId: string) =>
      Number((await t.store.handle.db.selectFrom('totp_authenticators').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow()).n);
    const downloadsLogged = async (accountId: string) =>
      (await t.store.handle.db.selectFrom('security_log').select('id').where('account_id', '=', accountId).where('kind', '=', 'recovery_key_downloaded').execute()).length;

    /** A device whose account has two passkeys and a pending TOTP authenticator: every sensitive route has a target. */
    async function richAccount(): Promise<{ device: Device; secondPasskeyId: string; totpId: string }> {
      const device = await t.client.signUp(uniqueName('su'));
      const added = await addPasskeyDetailed(t.client, device);
      const totp = await enrollTotp(t.client, device, 'Phone');
      return { device, secondPasskeyId: added.passkey.id, totpId: totp.id };
    }

    /** The five sensitive requests, each with whatever else it needs (Idempotency-Key, body). */
    function sensitiveRequests(target: { secondPasskeyId: string; totpId: string }): { name: string; method: string; path: string; options: CallOptions }[] {
      return [
        { name: 'DELETE /auth/methods/{id}', method: 'DELETE', path: `/api/v1/auth/methods/${target.secondPasskeyId}`, options: {} },
        { name: 'POST /auth/methods/passkeys/begin', method: 'POST', path: '/api/v1/auth/methods/passkeys/begin', options: { headers: { 'idempotency-key': randomUUID() } } },
        { name: 'POST /auth/totp', method: 'POST', path: '/api/v1/auth/totp', options: { body: { name: 'Another' }, headers: { 'idempotency-key': randomUUID() } } },
        { name: 'DELETE /auth/totp/{id}', method: 'DELETE', path: `/api/v1/auth/totp/${target.totpId}`, options: {} },
        { name: 'GET /auth/recovery-key', method: 'GET', path: RECOVERY_KEY, options: {} },
      ];
    }

    it('begin answers request options over the account\'s passkeys with user verification required', async () => {
      const { device } = await richAccount();
      const res = await t.client.as(device, 'POST', STEP_UP_BEGIN);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.match(res.body.ceremony_id, /^cer_/);
      assert.equal(res.body.options.userVerification, 'required');
      assert.equal(res.body.options.rpId, 'localhost');
      const held = [device.authenticator.credentials[0]!.id];
      const allowed = res.body.options.allowCredentials.map((c: { id: string }) => c.id);
      assert.equal(allowed.length, 2, 'both passkeys of the account are allowed');
      assert.ok(allowed.includes(held[0]));
      // Without a session there is no step-up.
      const anonymous = await t.client.call('POST', STEP_UP_BEGIN);
      assert.equal(anonymous.status, 401);
    });

    it('without the header every sensitive route answers 403 step_up_required and nothing changes', async () => {
      const target = await richAccount();
      const { device } = target;
      for (const request of sensitiveRequests(target)) {
        const res = await t.client.as(device, request.method, request.path, request.options);
        expectStepUpRequired(res, `${request.name} without VID-Step-Up`);
        assert.match(res.body.detail, /VID-Step-Up/);
      }
      assert.equal(await passkeyCount(device.accountId), 2);
      assert.equal(await totpCount(device.accountId), 1);
      assert.equal(await downloadsLogged(device.accountId), 0);
      // An empty header is no header.
      expectStepUpRequired(await t.client.as(device, 'GET', RECOVERY_KEY, { headers: { [STEP_UP_HEADER]: '' } }), 'empty header');
    });

    it('with a fresh step-up every sensitive route works', async () => {
      const target = await richAccount();
      const { device } = target;
      for (const request of sensitiveRequests(target)) {
        const headers = { ...request.options.headers, [STEP_UP_HEADER]: await stepUp(t.client, device) };
        const res = await t.client.as(device, request.method, request.path, { ...request.options, headers });
        assert.ok(res.status >= 200 && res.status < 300, `${request.name} with a step-up: ${res.status} ${JSON.stringify(res.body)}`);
      }
      assert.equal(await passkeyCount(device.accountId), 1, 'the second passkey was removed');
    });

    it('a step-up works once: the same header again is 403, on the same route or another', async () => {
      const { device, secondPasskeyId } = await richAccount();
      const header = await stepUp(t.client, device);
      const first = await t.client.as(device, 'GET', RECOVERY_KEY, { headers: { [STEP_UP_HEADER]: header } });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      expectStepUpRequired(await t.client.as(device, 'GET', RECOVERY_KEY, { headers: { [STEP_UP_HEADER]: header } }), 'same header, same route');
      expectStepUpRequired(await t.client.as(device, 'DELETE', `/api/v1/auth/methods/${secondPasskeyId}`, { headers: { [STEP_UP_HEADER]: header } }), 'same header, another route');
      assert.equal(await passkeyCount(device.accountId), 2);
      assert.equal(await downloadsLogged(device.accountId), 1);
    });

    it('a step-up is good for 5 minutes: at 299 s it works, after 300 s it is 403', async () => {
      const { device } = await richAccount();
      const early = await stepUp(t.client, device);
      t.clock.advance(299_000);
      assert.equal((await t.client.as(device, 'GET', RECOVERY_KEY, { headers: { [STEP_UP_HEADER]: early } })).status, 200);

      const device2 = (await richAccount()).device;
      const late = await stepUp(t.client, device2);
      t.clock.advance(300_001);
      expectStepUpRequired(await t.client.as(device2, 'GET', RECOVERY_KEY, { headers: { [STEP_UP_HEADER]: late } }), 'expired step-up');
      assert.equal(await downloadsLogged(device2.accountId), 0);
      // Signing an expired challenge late does not help either (a fresh device: access tokens last 10 minutes).
      const device3 = (await richAccount()).device;
      const begin = await beginStepUp(t.client, device3);
      t.clock.advance(300_001);
      const assertion = await device3.authenticator.getAssertion(begin.options, t.client.publicOrigin);
      expectStepUpRequired(await t.client.as(device3, 'GET', RECOVERY_KEY, { headers: { [STEP_UP_HEADER]: encodeStepUp(assertion) } }), 'challenge signed after expiry');
      assert.equal(await downloadsLogged(device3.accountId), 0);
    });

    it('a step-up begun by another session of the same account is refused, and changes nothing', async () => {
      const { device, secondPasskeyId } = await richAccount();
      const other = await logInAs(t.client, device);
      assert.notEqual(other.tokens.session_id, device.tokens.session_id);
      const header = await stepUp(t.client, other);
      expectStepUpRequired(
        await t.client.as(device, 'DELETE', `/api/v1/auth/methods/${secondPasskeyId}`, { headers: { [STEP_UP_HEADER]: header } }),
        'step-up from another session',
      );
      assert.equal(await passkeyCount(device.accountId), 2);
      // The caller's own step-up still works.
      const own = await t.client.as(device, 'DELETE', `/api/v1/auth/methods/${secondPasskeyId}`, { headers: { [STEP_UP_HEADER]: await stepUp(t.client, device) } });
      assert.equal(own.status, 204);
    });

    it('an assertion by another account\'s passkey, or without user verification, is refused', async () => {
      const { device } = await richAccount();
      const mallory = await t.client.signUp(uniqueName('mallory'));
      // Mallory's passkey signs the challenge Alice's session asked for.
      const begin = await beginStepUp(t.client, device);
      const foreign = await mallory.authenticator.getAssertion(begin.options, t.client.publicOrigin, { credentialId: mallory.authenticator.credentials[0]!.id });
      expectStepUpRequired(await t.client.as(device, 'GET', RECOVERY_KEY, { headers: { [STEP_UP_HEADER]: encodeStepUp(foreign) } }), 'another account\'s passkey');
      // The account's own passkey, but the authenticator did not verify the user (UV flag clear).
      const noUv = new SoftwareAuthenticator({ userVerification: false });
      noUv.credentials.push(...device.authenticator.credentials);
      const withoutUv = await stepUp(t.client, device, { authenticator: noUv });
      expectStepUpRequired(await t.client.as(device, 'GET', RECOVERY_KEY, { headers: { [STEP_UP_HEADER]: withoutUv } }), 'no user verification');
      // A signature that does not verify.
      const begin2 = await beginStepUp(t.client, device);
      const genuine = await device.authenticator.getAssertion(begin2.options, t.client.publicOrigin);
      const sig = Buffer.from(genuine.response.signature, 'base64url');
      sig[sig.length - 1] = sig[sig.length - 1]! ^ 0x01;
      const tampered = { ...genuine, response: { ...genuine.response, signature: sig.toString('base64url') } };
      expectStepUpRequired(await t.client.as(device, 'GET', RECOVERY_KEY, { headers: { [STEP_UP_HEADER]: encodeStepUp(tampered) } }), 'tampered signature');
      // The challenge is spent even by a failed attempt: the genuine assertion no longer works.
      expectStepUpRequired(await t.client.as(device, 'GET', RECOVERY_KEY, { headers: { [STEP_UP_HEADER]: encodeStepUp(genuine) } }), 'challenge spent by the failed attempt');
      assert.equal(await downloadsLogged(device.accountId), 0);
    });

    it('garbage headers are 403 step_up_required, never 400 or 500', async () => {
      const { device } = await richAccount();
      const garbage = [
        'garbage',
        '!!!not-base64!!!',
        Buffer.from('not json').toString('base64url'),
        Buffer.from('null').toString('base64url'),
        Buffer.from('[]').toString('base64url'),
        encodeStepUp({ id: 'x' }),
        encodeStepUp({ id: 'x', response: { clientDataJSON: 'not-json' } }),
        encodeStepUp({ id: 42, response: { clientDataJSON: Buffer.from(JSON.stringify({ challenge: 'abc' })).toString('base64url') } }),
        encodeStepUp({ id: 'x', response: { clientDataJSON: Buffer.from(JSON.stringify({ challenge: 'unknown-challenge' })).toString('base64url') } }),
        'a'.repeat(4000),
      ];
      for (const header of garbage) {
        expectStepUpRequired(await t.client.as(device, 'GET', RECOVERY_KEY, { headers: { [STEP_UP_HEADER]: header } }), `garbage ${header.slice(0, 40)}`);
      }
      assert.equal(await downloadsLogged(device.accountId), 0);
    });

    it('an ephemeral session cannot step up', async () => {
      const { device } = await richAccount();
      const header = await stepUp(t.client, device);
      // The session becomes ephemeral (as a join without persist_device makes it).
      await t.store.handle.db.updateTable('sessions').set({ trusted: 0 }).where('id', '=', device.tokens.session_id).execute();
      const begin = await t.client.as(device, 'POST', STEP_UP_BEGIN);
      assert.equal(begin.status, 403, JSON.stringify(begin.body));
      assert.equal(begin.body.code, 'ephemeral_session');
      // Even a step-up made while trusted is refused, and the answer says why: it can never pass.
      const download = await t.client.as(device, 'GET', RECOVERY_KEY, { headers: { [STEP_UP_HEADER]: header } });
      assert.equal(download.status, 403, JSON.stringify(download.body));
      assert.equal(download.body.code, 'ephemeral_session');
      assert.equal(await downloadsLogged(device.accountId), 0);
    });

    it('an idempotent replay of a completed step-up request needs no new assertion; a new request does', async () => {
      const { device } = await richAccount();
      const key = randomUUID();
      const first = await t.client.as(device, 'POST', '/api/v1/auth/totp', {
        body: { name: 'Replayed' },
        headers: { 'idempotency-key': key, [STEP_UP_HEADER]: await stepUp(t.client, device) },
      });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      const replay = await t.client.as(device, 'POST', '/api/v1/auth/totp', { body: { name: 'Replayed' }, headers: { 'idempotency-key': key } });
      assert.equal(replay.status, 201, JSON.stringify(replay.body));
      assert.equal(replay.headers.get('vid-idempotent-replay'), 'true');
      assert.equal(replay.body.id, first.body.id);
      assert.equal(await totpCount(device.accountId), 2, 'the replay created nothing');
      // Another body under the same key is not a replay; a new key without a step-up is refused.
      const reused = await t.client.as(device, 'POST', '/api/v1/auth/totp', { body: { name: 'Other' }, headers: { 'idempotency-key': key } });
      assert.equal(reused.status, 409);
      assert.equal(reused.body.code, 'idempotency_key_reused');
      expectStepUpRequired(await t.client.as(device, 'POST', '/api/v1/auth/totp', { body: { name: 'Other' }, headers: { 'idempotency-key': randomUUID() } }), 'new key, no step-up');
      assert.equal(await totpCount(device.accountId), 2);

      // A refused step-up is not recorded as the key's answer: the retry with a step-up runs.
      const retryKey = randomUUID();
      expectStepUpRequired(await t.client.as(device, 'POST', '/api/v1/auth/totp', { body: { name: 'Retry' }, headers: { 'idempotency-key': retryKey } }), 'first try without step-up');
      const retried = await t.client.as(device, 'POST', '/api/v1/auth/totp', {
        body: { name: 'Retry' },
        headers: { 'idempotency-key': retryKey, [STEP_UP_HEADER]: await stepUp(t.client, device) },
      });
      assert.equal(retried.status, 201, JSON.stringify(retried.body));
      assert.equal(retried.headers.get('vid-idempotent-replay'), null);
      assert.equal(await totpCount(device.accountId), 3);
    });
  });
}
