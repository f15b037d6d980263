// The no-trusted-device path (spec rule 2; PRODUCT §1 Join): POST /auth/join/start, then
// approve-with-factor with a TOTP code when the account has an authenticator app, else the
// recovery key; then the same finish as the trusted-device path.
import { randomUUID } from 'node:crypto';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { uniqueName } from '../helpers/client.js';
import type { Device } from '../helpers/client.js';
import type { DpopKey } from '../helpers/dpop.js';
import {
  ATTEMPT_TTL_MS,
  JOIN,
  approve,
  approveWithFactor,
  attemptRow,
  attemptStatus,
  deny,
  enrolTotp,
  finishEphemeral,
  finishPersistent,
  joinSignals,
  joinedDevice,
  lastSeq,
  passkeyCount,
  recoveryKey,
  start,
  totpCode,
  wrongTotp,
} from '../helpers/join.js';
import { expectProblem } from '../helpers/problem.js';

/** Another recovery key of the right shape (first group changed). */
function otherRecoveryKey(key: string): string {
  const groups = key.split('-');
  groups[0] = groups[0] === 'AAAA' ? 'BBBB' : 'AAAA';
  return groups.join('-');
}

for (const backend of backends) {
  describe(`join: the factor path (no trusted device) [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      // Code and client limits out of the way; the factor limit per attempt stays at its default (5).
      t = await startTestApp(backend, { JOIN_PER_CLIENT_PER_HOUR: '100000', JOIN_PER_KEY_PER_HOUR: '100000', JOIN_FACTOR_PER_CLIENT_PER_HOUR: '100000', TRUST_PROXY: '1' });
    });
    after(() => t.close());

    /** An account whose person kept the recovery key; the device that made it is then "lost". */
    async function accountWithKey(prefix = 'lost'): Promise<{ phone: Device; key: string }> {
      const phone = await t.client.signUp(uniqueName(prefix));
      return { phone, key: await recoveryKey(t.client, phone) };
    }

    async function startOk(username: string): Promise<{ attemptId: string; key: DpopKey }> {
      const { res, key } = await start(t.client, username);
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.status, 'awaiting_approval');
      assert.equal(Date.parse(res.body.expires_at), t.clock.now() + ATTEMPT_TTL_MS);
      return { attemptId: res.body.attempt_id, key };
    }

    it('no authenticator app: start, approve with the recovery key, keep the device: one passkey, trusted session', async () => {
      const { phone, key: recovery } = await accountWithKey();
      const from = await lastSeq(t.store, phone.accountId);
      const { attemptId, key } = await startOk(phone.username);
      assert.equal((await attemptRow(t.store, attemptId))?.via, 'factor');
      assert.deepEqual(await joinSignals(t.store, phone.accountId, from), ['join.requested /auth/join/pending']);
      // start alone logs nobody in.
      expectProblem(await finishEphemeral(t.client, key, attemptId), 403, 'JOIN_NOT_APPROVED');

      const res = await approveWithFactor(t.client, key, attemptId, { recovery_key: recovery });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.status, 'approved');
      assert.equal(await attemptStatus(t.client, key, attemptId), 'approved');
      assert.equal((await attemptRow(t.store, attemptId))?.decided_by, 'factor');

      const before = await passkeyCount(t.store, phone.accountId);
      const { res: finish, authenticator } = await finishPersistent(t.client, key, attemptId);
      const laptop = joinedDevice(finish, phone, key, authenticator);
      assert.equal(laptop.tokens.trusted, true);
      assert.equal(await passkeyCount(t.store, phone.accountId), before + 1);
      assert.deepEqual(await joinSignals(t.store, phone.accountId, from), [
        'join.requested /auth/join/pending',
        'join.changed /auth/join/pending',
        'join.changed /auth/join/pending',
      ]);
      const login = await t.client.logIn(authenticator);
      assert.equal(login.status, 200);
    });

    it('the recovery key as a person types it (lower case, no dashes) works; persist_device false gives an ephemeral session', async () => {
      const { phone, key: recovery } = await accountWithKey();
      const { attemptId, key } = await startOk(phone.username);
      const typed = recovery.toLowerCase().replace(/-/g, '');
      const res = await approveWithFactor(t.client, key, attemptId, { recovery_key: typed });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const passkeys = await passkeyCount(t.store, phone.accountId);
      const laptop = joinedDevice(await finishEphemeral(t.client, key, attemptId), phone, key);
      assert.equal(laptop.tokens.trusted, false);
      assert.equal(await passkeyCount(t.store, phone.accountId), passkeys);
    });

    it('no authenticator app: a wrong key, a TOTP code or nothing is 403 factor_invalid and changes nothing', async () => {
      const { phone, key: recovery } = await accountWithKey();
      const { attemptId, key } = await startOk(phone.username);
      const seq = await lastSeq(t.store, phone.accountId);
      expectProblem(await approveWithFactor(t.client, key, attemptId, { recovery_key: otherRecoveryKey(recovery) }), 403, 'factor_invalid');
      expectProblem(await approveWithFactor(t.client, key, attemptId, { totp_code: '123456' }), 403, 'factor_invalid');
      expectProblem(await approveWithFactor(t.client, key, attemptId, {}), 403, 'factor_invalid');
      assert.equal(await attemptStatus(t.client, key, attemptId), 'awaiting_approval');
      assert.equal(await lastSeq(t.store, phone.accountId), seq);
      expectProblem(await finishEphemeral(t.client, key, attemptId), 403, 'JOIN_NOT_APPROVED');
      // Still approvable (4 factor tries so far, under the limit of 5).
      assert.equal((await approveWithFactor(t.client, key, attemptId, { recovery_key: recovery })).status, 200);
    });

    it('with an authenticator app: the recovery key is refused, a current TOTP code approves, and that code works once', async () => {
      const { phone, key: recovery } = await accountWithKey('totp');
      const secret = await enrolTotp(t, phone);
      const first = await startOk(phone.username);
      expectProblem(await approveWithFactor(t.client, first.key, first.attemptId, { recovery_key: recovery }), 403, 'factor_invalid');
      expectProblem(await approveWithFactor(t.client, first.key, first.attemptId, { totp_code: wrongTotp(secret, t.clock.now()) }), 403, 'factor_invalid');
      assert.equal(await attemptStatus(t.client, first.key, first.attemptId), 'awaiting_approval');
      const code = totpCode(secret, t.clock.now());
      const ok = await approveWithFactor(t.client, first.key, first.attemptId, { totp_code: code, recovery_key: recovery });
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      assert.equal(ok.body.status, 'approved');
      // The same code again, for another attempt: spent.
      const second = await startOk(phone.username);
      expectProblem(await approveWithFactor(t.client, second.key, second.attemptId, { totp_code: code }), 403, 'factor_invalid');
      assert.equal(await attemptStatus(t.client, second.key, second.attemptId), 'awaiting_approval');
      joinedDevice(await finishEphemeral(t.client, first.key, first.attemptId), phone, first.key);
    });

    it('approve-with-factor from another key than the starter: 403 join_key_mismatch; unknown attempt: 404', async () => {
      const { phone, key: recovery } = await accountWithKey();
      const { attemptId, key } = await startOk(phone.username);
      const thief = await t.client.newKey();
      expectProblem(await approveWithFactor(t.client, thief, attemptId, { recovery_key: recovery }), 403, 'join_key_mismatch');
      expectProblem(await approveWithFactor(t.client, thief, 'join_doesnotexist', { recovery_key: recovery }), 404, 'join_attempt_not_found');
      assert.equal(await attemptStatus(t.client, key, attemptId), 'awaiting_approval');
      expectProblem(await finishEphemeral(t.client, thief, attemptId), 403, 'join_key_mismatch');
    });

    it('refused transitions: approved twice 409, denied 409, expired 410', async () => {
      const { phone, key: recovery } = await accountWithKey();
      const approved = await startOk(phone.username);
      assert.equal((await approveWithFactor(t.client, approved.key, approved.attemptId, { recovery_key: recovery })).status, 200);
      expectProblem(await approveWithFactor(t.client, approved.key, approved.attemptId, { recovery_key: recovery }), 409, 'invalid_transition');
      // A trusted device that is not lost after all may deny a factor attempt.
      const denied = await startOk(phone.username);
      assert.equal((await deny(t.client, phone, denied.attemptId)).status, 200);
      expectProblem(await approveWithFactor(t.client, denied.key, denied.attemptId, { recovery_key: recovery }), 409, 'invalid_transition');
      expectProblem(await finishEphemeral(t.client, denied.key, denied.attemptId), 403, 'join_denied');
      const late = await startOk(phone.username);
      t.clock.advance(ATTEMPT_TTL_MS);
      expectProblem(await approveWithFactor(t.client, late.key, late.attemptId, { recovery_key: recovery }), 410, 'join_attempt_expired');
      assert.equal(await attemptStatus(t.client, late.key, late.attemptId), 'expired');
    });

    it('a started attempt shows in pending and may be denied there, but a device cannot approve it (no code, no push approval)', async () => {
      // Anyone who knows a username can call start; if a tap on a trusted device could approve
      // that, start would turn the join into push-approval and invite prompt bombing. Only the
      // factor approves a factor attempt; the trusted device sees it and can deny it.
      const { phone } = await accountWithKey();
      const { attemptId, key } = await startOk(phone.username);
      const pending = await t.client.as(phone, 'GET', `${JOIN}/pending`);
      assert.deepEqual(pending.body.data.map((p: any) => p.attempt_id), [attemptId]);
      const res = await approve(t.client, phone, attemptId);
      assert.equal(res.status, 409, `a trusted device approved a code-less attempt: ${res.status} ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'invalid_transition');
      assert.equal(await attemptStatus(t.client, key, attemptId), 'awaiting_approval');
      expectProblem(await finishEphemeral(t.client, key, attemptId), 403, 'JOIN_NOT_APPROVED');
      assert.equal((await deny(t.client, phone, attemptId)).status, 200);
      expectProblem(await finishEphemeral(t.client, key, attemptId), 403, 'join_denied');
    });

    it('start for an unknown username: 404 account_not_found; start needs a DPoP proof', async () => {
      expectProblem((await start(t.client, uniqueName('nobody'))).res, 404, 'account_not_found');
      const res = await t.client.call('POST', `${JOIN}/start`, { body: { username: uniqueName('nobody') }, headers: { 'idempotency-key': randomUUID() } });
      assert.equal(res.status, 401);
    });

    it('each attempt takes five wrong factors; the sixth on it is 429 with Retry-After, even the right one, and other attempts are untouched', async () => {
      const { phone, key: recovery } = await accountWithKey('limit');
      const spent = await startOk(phone.username);
      for (let i = 0; i < 5; i++) expectProblem(await approveWithFactor(t.client, spent.key, spent.attemptId, { recovery_key: otherRecoveryKey(recovery) }), 403, 'factor_invalid');
      const blocked = await approveWithFactor(t.client, spent.key, spent.attemptId, { recovery_key: recovery });
      expectProblem(blocked, 429, 'too_many_attempts');
      assert.ok(Number(blocked.headers.get('retry-after')) >= 1, `Retry-After ${blocked.headers.get('retry-after')}`);
      assert.equal(await attemptStatus(t.client, spent.key, spent.attemptId), 'awaiting_approval');
      // The same person's next attempt takes the right key at once.
      const again = await startOk(phone.username);
      assert.equal((await approveWithFactor(t.client, again.key, again.attemptId, { recovery_key: recovery })).status, 200);
    });

    it('a stranger\'s wrong factors, on as many attempts and addresses as they like, never refuse the person\'s right factor', async () => {
      const { phone, key: recovery } = await accountWithKey('victim');
      for (let n = 1; n <= 4; n++) {
        const a = await startOk(phone.username);
        for (let i = 0; i < 6; i++) await approveWithFactor(t.client, a.key, a.attemptId, { recovery_key: otherRecoveryKey(recovery) }, { 'x-forwarded-for': `203.0.113.${n}` });
      }
      const own = await startOk(phone.username);
      const res = await approveWithFactor(t.client, own.key, own.attemptId, { recovery_key: recovery }, { 'x-forwarded-for': '192.0.2.7' });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      // The person sees the failures in their recent activity.
      const log = await t.client.as(phone, 'GET', '/api/v1/auth/security-log?limit=200');
      assert.equal(log.body.data.filter((e: { kind: string }) => e.kind === 'join_factor_failed').length, 20);
    });

    it('keeps a 6-digit authenticator code out of reach: five guesses an attempt, the right code still works on the person\'s own', async () => {
      const { phone } = await accountWithKey('totplimit');
      const secret = await enrolTotp(t, phone);
      const guessing = await startOk(phone.username);
      for (let i = 0; i < 5; i++) expectProblem(await approveWithFactor(t.client, guessing.key, guessing.attemptId, { totp_code: wrongTotp(secret, t.clock.now()) }), 403, 'factor_invalid');
      expectProblem(await approveWithFactor(t.client, guessing.key, guessing.attemptId, { totp_code: totpCode(secret, t.clock.now()) }), 429, 'too_many_attempts');
      const own = await startOk(phone.username);
      assert.equal((await approveWithFactor(t.client, own.key, own.attemptId, { totp_code: totpCode(secret, t.clock.now()) })).status, 200);
    });
  });
}

for (const backend of backends) {
  describe(`join: factor tries per client address [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend, { JOIN_PER_CLIENT_PER_HOUR: '100000', JOIN_PER_KEY_PER_HOUR: '100000', JOIN_FACTOR_PER_CLIENT_PER_HOUR: '3', TRUST_PROXY: '1' });
    });
    after(() => t.close());

    it('an address gets a few tries an hour across attempts; another address is not affected', async () => {
      const phone = await t.client.signUp(uniqueName('addr'));
      const recovery = await recoveryKey(t.client, phone);
      const mallory = { 'x-forwarded-for': '203.0.113.66' };
      for (let i = 0; i < 3; i++) {
        const a = await start(t.client, phone.username);
        expectProblem(await approveWithFactor(t.client, a.key, a.res.body.attempt_id, { recovery_key: otherRecoveryKey(recovery) }, mallory), 403, 'factor_invalid');
      }
      const fourth = await start(t.client, phone.username);
      expectProblem(await approveWithFactor(t.client, fourth.key, fourth.res.body.attempt_id, { recovery_key: otherRecoveryKey(recovery) }, mallory), 429, 'too_many_attempts');
      const own = await start(t.client, phone.username);
      assert.equal((await approveWithFactor(t.client, own.key, own.res.body.attempt_id, { recovery_key: recovery }, { 'x-forwarded-for': '198.51.100.8' })).status, 200);
    });
  });
}
