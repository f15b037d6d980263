// Discoverable sign-in (PRODUCT §1 login/begin, login/finish; STANDARDS "WebAuthn Level 3";
// docs/decisions/006): credential lookup, userHandle binding, sign counters, single-use challenges,
// and the passkey's last use and DPoP key being recorded.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { backends } from '../helpers/backends.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { SoftwareAuthenticator } from '../helpers/authenticator.js';
import type { SoftwareAuthenticatorOptions } from '../helpers/authenticator.js';
import { uniqueName } from '../helpers/client.js';
import type { CallResult, Device } from '../helpers/client.js';
import type { DpopKey } from '../helpers/dpop.js';
import { expectProblem } from '../helpers/problem.js';

const LOGIN_BEGIN = '/api/v1/auth/login/begin';
const LOGIN_FINISH = '/api/v1/auth/login/finish';

interface Begun {
  ceremony_id: string;
  options: PublicKeyCredentialRequestOptionsJSON;
}

/** The same credentials (keys, counters) in an authenticator that sets other flags. */
function withFlags(source: SoftwareAuthenticator, options: SoftwareAuthenticatorOptions): SoftwareAuthenticator {
  const copy = new SoftwareAuthenticator(options);
  copy.credentials.push(...source.credentials);
  return copy;
}

for (const backend of backends) {
  describe(`sign-in: login/begin and login/finish [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend);
    });
    after(() => t.close());

    const db = () => t.store.handle.db;

    async function begin(): Promise<Begun> {
      const res = await t.client.call('POST', LOGIN_BEGIN);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body as Begun;
    }

    async function finish(ceremonyId: string, credential: AuthenticationResponseJSON, key?: DpopKey): Promise<CallResult & { key: DpopKey }> {
      const proofKey = key ?? (await t.client.newKey());
      const res = await t.client.call('POST', LOGIN_FINISH, { body: { ceremony_id: ceremonyId, credential }, key: proofKey });
      return { ...res, key: proofKey };
    }

    const passkeyOf = (device: Device) => db().selectFrom('passkeys').selectAll().where('account_id', '=', device.accountId).executeTakeFirstOrThrow();
    const sessionCount = async () => (await db().selectFrom('sessions').select('id').execute()).length;

    /** Runs a refused finish and proves that no session was opened and the passkey row did not move. */
    async function expectRefusal(device: Device | undefined, run: () => Promise<CallResult>, status: number, code: string): Promise<CallResult> {
      const sessionsBefore = await sessionCount();
      const passkeyBefore = device ? await passkeyOf(device) : undefined;
      const res = await run();
      expectProblem(res, status, code);
      assert.equal(await sessionCount(), sessionsBefore, 'a refused login opens no session');
      if (device && passkeyBefore) {
        const after = await passkeyOf(device);
        assert.equal(Number(after.counter), Number(passkeyBefore.counter));
        assert.equal(after.dpop_jkt, passkeyBefore.dpop_jkt);
        assert.equal(after.last_used_at, passkeyBefore.last_used_at);
      }
      return res;
    }

    it('begin returns discoverable request options: no allowCredentials, user verification required', async () => {
      const { ceremony_id, options } = await begin();
      assert.match(ceremony_id, /^cer_/);
      assert.ok(options.allowCredentials === undefined || options.allowCredentials.length === 0, JSON.stringify(options.allowCredentials));
      assert.equal(options.userVerification, 'required');
      assert.equal(options.rpId, 'localhost');
      assert.equal(options.timeout, 300_000);
      assert.ok(Buffer.from(options.challenge, 'base64url').length >= 16);
      const other = await begin();
      assert.notEqual(other.options.challenge, options.challenge);
      assert.notEqual(other.ceremony_id, ceremony_id);
    });

    it('login records the use: counter, last_used_at, and the passkey rebound to the new DPoP key', async () => {
      const authenticator = new SoftwareAuthenticator();
      const device = await t.client.signUp(uniqueName('rebind'), authenticator);
      const before = await passkeyOf(device);
      assert.equal(before.dpop_jkt, device.key.jkt);
      assert.equal(before.last_used_at, null);

      t.clock.advance(5_000);
      const { ceremony_id, options } = await begin();
      const assertion = await authenticator.getAssertion(options, t.client.publicOrigin);
      const res = await finish(ceremony_id, assertion);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.token_type, 'DPoP');
      assert.equal(res.body.trusted, true);
      assert.equal(res.headers.get('cache-control'), 'no-store');

      const after = await passkeyOf(device);
      assert.equal(after.dpop_jkt, res.key.jkt);
      assert.notEqual(after.dpop_jkt, device.key.jkt);
      assert.equal(Number(after.last_used_at), t.clock.now());
      assert.equal(Number(after.counter), 1);
      const session = await db().selectFrom('sessions').selectAll().where('id', '=', res.body.session_id).executeTakeFirstOrThrow();
      assert.equal(session.jkt, res.key.jkt);
      assert.equal(session.account_id, device.accountId);

      // The new token is bound to the new key only.
      const me = await t.client.call('GET', '/api/v1/me', { key: res.key, token: res.body.access_token });
      assert.equal(me.status, 200);
      const stolen = await t.client.call('GET', '/api/v1/me', { key: device.key, token: res.body.access_token });
      assert.equal(stolen.status, 401);
      assert.equal(stolen.body.code, 'invalid_token');
    });

    it('a synced passkey with a zero counter may log in repeatedly (both zero is normal)', async () => {
      const authenticator = new SoftwareAuthenticator();
      const device = await t.client.signUp(uniqueName('zero'), authenticator);
      for (let i = 0; i < 2; i++) {
        const { ceremony_id, options } = await begin();
        const res = await finish(ceremony_id, await authenticator.getAssertion(options, t.client.publicOrigin, { counter: 0 }));
        assert.equal(res.status, 200, JSON.stringify(res.body));
      }
      assert.equal((await passkeyOf(device)).flagged_at, null);
    });

    it('a credential no account holds is 401 passkey_not_recognized', async () => {
      const stranger = new SoftwareAuthenticator();
      // A resident credential for our RP id that was never registered with the service.
      await stranger.createCredential(
        {
          rp: { id: 'localhost', name: 'elsewhere' },
          user: { id: randomBytes(32).toString('base64url'), name: 'ghost', displayName: 'ghost' },
          challenge: randomBytes(32).toString('base64url'),
          pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
        },
        t.client.publicOrigin,
      );
      const { ceremony_id, options } = await begin();
      const assertion = await stranger.getAssertion(options, t.client.publicOrigin);
      const res = await expectRefusal(undefined, () => finish(ceremony_id, assertion), 401, 'passkey_not_recognized');
      assert.equal(res.headers.get('content-type')?.split(';')[0], 'application/problem+json');
    });

    it("a userHandle naming another account is 401 passkey_not_recognized", async () => {
      const mine = new SoftwareAuthenticator();
      const theirs = new SoftwareAuthenticator();
      const device = await t.client.signUp(uniqueName('mine'), mine);
      await t.client.signUp(uniqueName('theirs'), theirs);
      const theirHandle = theirs.credentials[0]?.userHandle;
      assert.ok(theirHandle);
      assert.notEqual(theirHandle, mine.credentials[0]?.userHandle);
      const { ceremony_id, options } = await begin();
      const assertion = await mine.getAssertion(options, t.client.publicOrigin);
      assertion.response.userHandle = theirHandle;
      await expectRefusal(device, () => finish(ceremony_id, assertion), 401, 'passkey_not_recognized');
    });

    it('a discoverable assertion without userHandle is refused with 401 passkey_not_recognized', async () => {
      const authenticator = new SoftwareAuthenticator();
      const device = await t.client.signUp(uniqueName('nohandle'), authenticator);
      const { ceremony_id, options } = await begin();
      const assertion = await authenticator.getAssertion(options, t.client.publicOrigin);
      delete assertion.response.userHandle;
      await expectRefusal(device, () => finish(ceremony_id, assertion), 401, 'passkey_not_recognized');
    });

    it('a counter that goes backwards is 401 passkey_counter_regressed and flags the passkey', async () => {
      const authenticator = new SoftwareAuthenticator();
      const device = await t.client.signUp(uniqueName('clone'), authenticator);
      for (let i = 0; i < 2; i++) {
        const ok = await t.client.logIn(authenticator);
        assert.equal(ok.status, 200, JSON.stringify(ok.body));
      }
      const before = await passkeyOf(device);
      assert.equal(Number(before.counter), 2);
      assert.equal(before.flagged_at, null);

      t.clock.advance(1_000);
      const { ceremony_id, options } = await begin();
      const cloned = await authenticator.getAssertion(options, t.client.publicOrigin, { counter: 1 });
      const sessionsBefore = await sessionCount();
      const res = await finish(ceremony_id, cloned);
      assert.equal(res.status, 401, JSON.stringify(res.body));
      assert.equal(res.body.code, 'passkey_counter_regressed');
      assert.equal(await sessionCount(), sessionsBefore);

      const after = await passkeyOf(device);
      assert.equal(Number(after.flagged_at), t.clock.now(), 'flagged_at is set');
      assert.equal(Number(after.counter), 2, 'the stored counter does not move backwards');
      assert.equal(after.dpop_jkt, before.dpop_jkt, 'a refused login does not rebind the passkey');
      assert.equal(after.last_used_at, before.last_used_at);
    });

    it('a repeated counter (not growing) is refused as a regression too', async () => {
      const authenticator = new SoftwareAuthenticator();
      const device = await t.client.signUp(uniqueName('repeat'), authenticator);
      assert.equal((await t.client.logIn(authenticator)).status, 200);
      const { ceremony_id, options } = await begin();
      const repeated = await authenticator.getAssertion(options, t.client.publicOrigin, { keepCounter: true });
      await expectRefusal(device, () => finish(ceremony_id, repeated), 401, 'passkey_counter_regressed');
      assert.notEqual((await passkeyOf(device)).flagged_at, null);
    });

    it('a ceremony answers once: a second finish is 400 ceremony_invalid', async () => {
      const authenticator = new SoftwareAuthenticator();
      const device = await t.client.signUp(uniqueName('relogin'), authenticator);
      const { ceremony_id, options } = await begin();
      const first = await finish(ceremony_id, await authenticator.getAssertion(options, t.client.publicOrigin));
      assert.equal(first.status, 200, JSON.stringify(first.body));
      const again = await authenticator.getAssertion(options, t.client.publicOrigin);
      await expectRefusal(device, () => finish(ceremony_id, again), 400, 'ceremony_invalid');
    });

    it('a refused assertion still uses up its ceremony (consumed whatever the outcome)', async () => {
      const authenticator = new SoftwareAuthenticator();
      const device = await t.client.signUp(uniqueName('burn'), authenticator);
      const { ceremony_id, options } = await begin();
      const bad = await authenticator.getAssertion(options, 'https://evil.example');
      await expectRefusal(device, () => finish(ceremony_id, bad), 400, 'invalid_assertion');
      const good = await authenticator.getAssertion(options, t.client.publicOrigin);
      await expectRefusal(device, () => finish(ceremony_id, good), 400, 'ceremony_invalid');
    });

    it('a ceremony older than 300 s is 400 ceremony_invalid', async () => {
      const authenticator = new SoftwareAuthenticator();
      const device = await t.client.signUp(uniqueName('stale'), authenticator);
      const { ceremony_id, options } = await begin();
      const assertion = await authenticator.getAssertion(options, t.client.publicOrigin);
      t.clock.advance(301_000);
      await expectRefusal(device, () => finish(ceremony_id, assertion), 400, 'ceremony_invalid');
    });

    it('a register ceremony id used for login is 400 ceremony_invalid', async () => {
      const authenticator = new SoftwareAuthenticator();
      const device = await t.client.signUp(uniqueName('wrongkind'), authenticator);
      const reg = await t.client.call('POST', '/api/v1/auth/register/begin', { body: { username: uniqueName('pending') } });
      assert.equal(reg.status, 200);
      const assertion = await authenticator.getAssertion({ challenge: reg.body.options.challenge, rpId: 'localhost' }, t.client.publicOrigin);
      await expectRefusal(device, () => finish(reg.body.ceremony_id, assertion), 400, 'ceremony_invalid');
    });

    it('an unknown ceremony id is 400 ceremony_invalid', async () => {
      const authenticator = new SoftwareAuthenticator();
      const device = await t.client.signUp(uniqueName('unknowncer'), authenticator);
      const { options } = await begin();
      const assertion = await authenticator.getAssertion(options, t.client.publicOrigin);
      await expectRefusal(device, () => finish('cer_doesnotexist', assertion), 400, 'ceremony_invalid');
    });

    describe('assertion verification', () => {
      it('without user verification: 400 invalid_assertion', async () => {
        const authenticator = new SoftwareAuthenticator();
        const device = await t.client.signUp(uniqueName('nouv'), authenticator);
        const noUv = withFlags(authenticator, { userVerification: false });
        const { ceremony_id, options } = await begin();
        const assertion = await noUv.getAssertion(options, t.client.publicOrigin);
        await expectRefusal(device, () => finish(ceremony_id, assertion), 400, 'invalid_assertion');
      });

      it('without user presence: 400 invalid_assertion', async () => {
        const authenticator = new SoftwareAuthenticator();
        const device = await t.client.signUp(uniqueName('noup'), authenticator);
        const noUp = withFlags(authenticator, { userPresence: false });
        const { ceremony_id, options } = await begin();
        await expectRefusal(device, async () => finish(ceremony_id, await noUp.getAssertion(options, t.client.publicOrigin)), 400, 'invalid_assertion');
      });

      it('a backup-eligibility flag differing from registration: 400 invalid_assertion', async () => {
        const authenticator = new SoftwareAuthenticator({ backupEligible: true, backedUp: true });
        const device = await t.client.signUp(uniqueName('bechange'), authenticator);
        const notEligible = withFlags(authenticator, { backupEligible: false, backedUp: false });
        const { ceremony_id, options } = await begin();
        await expectRefusal(device, async () => finish(ceremony_id, await notEligible.getAssertion(options, t.client.publicOrigin)), 400, 'invalid_assertion');
      });

      it('a signature by another key: 400 invalid_assertion', async () => {
        const authenticator = new SoftwareAuthenticator();
        const device = await t.client.signUp(uniqueName('forged'), authenticator);
        const forger = new SoftwareAuthenticator();
        await forger.createCredential(
          {
            rp: { id: 'localhost', name: 'x' },
            user: { id: randomBytes(32).toString('base64url'), name: 'x', displayName: 'x' },
            challenge: randomBytes(32).toString('base64url'),
            pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
          },
          t.client.publicOrigin,
        );
        const { ceremony_id, options } = await begin();
        const genuine = await authenticator.getAssertion(options, t.client.publicOrigin);
        const forged = await forger.getAssertion(options, t.client.publicOrigin);
        // The victim's credential id and user handle, signed with the forger's key.
        forged.id = genuine.id;
        forged.rawId = genuine.rawId;
        forged.response.userHandle = genuine.response.userHandle;
        forged.response.authenticatorData = genuine.response.authenticatorData;
        forged.response.clientDataJSON = genuine.response.clientDataJSON;
        await expectRefusal(device, () => finish(ceremony_id, forged), 400, 'invalid_assertion');
      });

      it('a challenge from another ceremony: 400 invalid_assertion', async () => {
        const authenticator = new SoftwareAuthenticator();
        const device = await t.client.signUp(uniqueName('otherchal'), authenticator);
        const first = await begin();
        const second = await begin();
        const assertion = await authenticator.getAssertion(second.options, t.client.publicOrigin);
        await expectRefusal(device, () => finish(first.ceremony_id, assertion), 400, 'invalid_assertion');
      });
    });

    describe('DPoP and body validation', () => {
      it('finish without a DPoP proof is 401 invalid_dpop_proof and leaves the ceremony usable', async () => {
        const authenticator = new SoftwareAuthenticator();
        const device = await t.client.signUp(uniqueName('nodpop'), authenticator);
        const { ceremony_id, options } = await begin();
        const assertion = await authenticator.getAssertion(options, t.client.publicOrigin);
        const res = await expectRefusal(
          device,
          () => t.client.call('POST', LOGIN_FINISH, { body: { ceremony_id, credential: assertion } }),
          401,
          'invalid_dpop_proof',
        );
        assert.match(res.headers.get('www-authenticate') ?? '', /error="invalid_dpop_proof"/);
        const retry = await finish(ceremony_id, assertion);
        assert.equal(retry.status, 200, JSON.stringify(retry.body));
      });

      it('malformed bodies are 400 validation_failed', async () => {
        const missing = await t.client.call('POST', LOGIN_FINISH, { body: { ceremony_id: 'cer_x' }, key: await t.client.newKey() });
        assert.equal(missing.status, 400);
        assert.equal(missing.body.code, 'validation_failed');
        const authenticator = new SoftwareAuthenticator();
        await t.client.signUp(uniqueName('badtype'), authenticator);
        const { ceremony_id, options } = await begin();
        const assertion = await authenticator.getAssertion(options, t.client.publicOrigin);
        const badType = await t.client.call('POST', LOGIN_FINISH, {
          body: { ceremony_id, credential: { ...assertion, type: 'foo' } },
          key: await t.client.newKey(),
        });
        assert.equal(badType.status, 400);
        assert.equal(badType.body.code, 'validation_failed');
        assert.ok((badType.body.errors as { path: string }[]).some((e) => e.path === '/credential/type'), JSON.stringify(badType.body.errors));
      });
    });
  });
}
