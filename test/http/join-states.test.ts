// The join attempt state machine (spec: States and transitions; PRODUCT §1 Join): every row of
// the table and every refused transition, through the HTTP API, with the manual clock for expiry.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { SoftwareAuthenticator } from '../helpers/authenticator.js';
import { uniqueName } from '../helpers/client.js';
import type { Device } from '../helpers/client.js';
import {
  ATTEMPT_TTL_MS,
  CODE_TTL_MS,
  JOIN,
  RELAXED_JOIN_LIMITS,
  approve,
  approveOk,
  attempt,
  attemptRow,
  attemptStatus,
  deny,
  finishEphemeral,
  finishPersistent,
  fullwidth,
  issueCode,
  joinNewDevice,
  joinSignals,
  joinedDevice,
  lastSeq,
  otherCode,
  passkeyCount,
  redeem,
  redeemOk,
  registerOptions,
  renew,
  requestJoin,
  sessionRow,
  stepUp,
} from '../helpers/join.js';
import { expectProblem } from '../helpers/problem.js';

const FIREFOX_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:132.0) Gecko/20100101 Firefox/132.0';

for (const backend of backends) {
  describe(`join: states and transitions [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend, RELAXED_JOIN_LIMITS);
    });
    after(() => t.close());

    const signUp = (prefix = 'join') => t.client.signUp(uniqueName(prefix));
    const liveSessions = async (accountId: string) =>
      (await t.store.handle.db.selectFrom('sessions').select('id').where('account_id', '=', accountId).where('revoked_at', 'is', null).execute()).length;

    describe('the rows of the table', () => {
      it('(none) → code issued: a trusted session gets 6 digits, single use, valid 120 s, not cached', async () => {
        const phone = await signUp();
        const res = await t.client.as(phone, 'POST', `${JOIN}/issue`, { headers: { 'idempotency-key': randomUUID() } });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.match(res.body.code, /^[0-9]{6}$/);
        assert.equal(Date.parse(res.body.expires_at), t.clock.now() + CODE_TTL_MS);
        assert.equal(res.headers.get('cache-control'), 'no-store');
        // Stored as a keyed hash, never the digits themselves.
        const rows = await t.store.handle.db.selectFrom('join_codes').selectAll().where('account_id', '=', phone.accountId).execute();
        assert.equal(rows.length, 1);
        assert.ok(!JSON.stringify(rows).includes(`"${res.body.code}"`));
        assert.notEqual(rows[0]!.code_hash, res.body.code);
      });

      it('issue needs a session: a proof without a token is 401', async () => {
        const key = await t.client.newKey();
        const res = await t.client.call('POST', `${JOIN}/issue`, { key, headers: { 'idempotency-key': randomUUID() } });
        assert.equal(res.status, 401);
      });

      it('code issued → awaiting approval: redeem binds the attempt to the new key and logs nobody in', async () => {
        const phone = await signUp();
        const { code } = await issueCode(t.client, phone);
        const sessionsBefore = await liveSessions(phone.accountId);
        const { res, key } = await redeem(t.client, phone.username, code);
        assert.equal(res.status, 201, JSON.stringify(res.body));
        assert.deepEqual(Object.keys(res.body).sort(), ['attempt_id', 'expires_at', 'schema_version', 'status']);
        assert.equal(res.body.status, 'awaiting_approval');
        assert.equal(Date.parse(res.body.expires_at), t.clock.now() + ATTEMPT_TTL_MS);
        assert.equal(await liveSessions(phone.accountId), sessionsBefore, 'redeem opened a session');
        const row = await attemptRow(t.store, res.body.attempt_id);
        assert.equal(row?.jkt, key.jkt);
        assert.equal(row?.account_id, phone.accountId);
        assert.equal(await attemptStatus(t.client, key, res.body.attempt_id), 'awaiting_approval');
      });

      it('awaiting approval → (finish) → awaiting approval: 403 JOIN_NOT_APPROVED, and register-options likewise', async () => {
        const phone = await signUp();
        const { attemptId, key } = await requestJoin(t.client, phone);
        const seq = await lastSeq(t.store, phone.accountId);
        expectProblem(await finishEphemeral(t.client, key, attemptId), 403, 'JOIN_NOT_APPROVED');
        expectProblem(await registerOptions(t.client, key, attemptId), 403, 'JOIN_NOT_APPROVED');
        assert.equal(await attemptStatus(t.client, key, attemptId), 'awaiting_approval');
        assert.equal(await lastSeq(t.store, phone.accountId), seq, 'a refused finish wrote a signal');
        // The refusal changed nothing: the attempt still goes through.
        await approveOk(t.client, phone, attemptId);
        joinedDevice(await finishEphemeral(t.client, key, attemptId), phone, key);
      });

      it('awaiting approval → approved (approve from the trusted device, step-up, Idempotency-Key)', async () => {
        const phone = await signUp();
        const { attemptId, key } = await requestJoin(t.client, phone);
        const res = await approve(t.client, phone, attemptId);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.attempt_id, attemptId);
        assert.equal(res.body.status, 'approved');
        assert.equal(await attemptStatus(t.client, key, attemptId), 'approved');
        const row = await attemptRow(t.store, attemptId);
        assert.equal(row?.decided_by, phone.tokens.session_id);
      });

      it('approved → session issued, persist_device false (the default): ephemeral DPoP-bound session, no credential stored', async () => {
        const phone = await signUp();
        const { attemptId, key } = await requestJoin(t.client, phone);
        await approveOk(t.client, phone, attemptId);
        const passkeys = await passkeyCount(t.store, phone.accountId);
        const res = await finishEphemeral(t.client, key, attemptId, { omit: true });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.trusted, false);
        assert.equal(res.body.token_type, 'DPoP');
        assert.equal(res.headers.get('cache-control'), 'no-store');
        assert.equal(await passkeyCount(t.store, phone.accountId), passkeys, 'an ephemeral join stored a credential');
        const session = await sessionRow(t.store, res.body.session_id);
        assert.equal(session?.trusted, 0);
        assert.equal(session?.jkt, key.jkt);
        const laptop = joinedDevice(res, phone, key);
        const me = await t.client.as(laptop, 'GET', '/api/v1/me');
        assert.equal(me.status, 200);
        assert.equal(me.body.id, phone.accountId);
        // Bound to the redeemer's key: another key cannot use the token.
        const thief = await t.client.newKey();
        assert.equal((await t.client.call('GET', '/api/v1/me', { key: thief, token: laptop.tokens.access_token })).status, 401);
        assert.equal(await attemptStatus(t.client, key, attemptId), 'finished');
      });

      it('approved → session issued, persist_device true: exactly one passkey added, a trusted session, and later logins with it', async () => {
        const phone = await signUp();
        const { attemptId, key } = await requestJoin(t.client, phone);
        await approveOk(t.client, phone, attemptId);
        const before = await passkeyCount(t.store, phone.accountId);
        const { res, authenticator } = await finishPersistent(t.client, key, attemptId);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.trusted, true);
        assert.equal(await passkeyCount(t.store, phone.accountId), before + 1);
        const stored = await t.store.handle.db.selectFrom('passkeys').selectAll().where('account_id', '=', phone.accountId).where('credential_id', '=', authenticator.credentials[0]!.id).execute();
        assert.equal(stored.length, 1);
        assert.equal(stored[0]!.dpop_jkt, key.jkt);
        assert.equal((await sessionRow(t.store, res.body.session_id))?.trusted, 1);
        const laptop = joinedDevice(res, phone, key, authenticator);
        const methods = await t.client.as(laptop, 'GET', '/api/v1/auth/methods');
        assert.equal(methods.status, 200);
        assert.equal(methods.body.data.length, before + 1);
        // A trusted device: it can issue codes and step up.
        await issueCode(t.client, laptop);
        await stepUp(t.client, laptop);
        // The new passkey logs in on its own later.
        const login = await t.client.logIn(authenticator);
        assert.equal(login.status, 200, JSON.stringify(login.body));
        assert.equal(login.body.trusted, true);
        const me = await t.client.call('GET', '/api/v1/me', { key: login.key, token: login.body.access_token });
        assert.equal(me.body.id, phone.accountId);
      });

      it('persist_device true without the ceremony: 400 credential_required, nothing stored, the attempt still finishes', async () => {
        const phone = await signUp();
        const { attemptId, key } = await requestJoin(t.client, phone);
        await approveOk(t.client, phone, attemptId);
        const before = await passkeyCount(t.store, phone.accountId);
        const res = await t.client.call('POST', `${JOIN}/finish`, { body: { attempt_id: attemptId, persist_device: true }, key });
        expectProblem(res, 400, 'credential_required');
        assert.equal(await passkeyCount(t.store, phone.accountId), before);
        assert.equal(await attemptStatus(t.client, key, attemptId), 'approved');
        joinedDevice(await finishEphemeral(t.client, key, attemptId), phone, key);
      });
    });

    describe('refused transitions', () => {
      it('approved → finish twice: the second is 409 join_already_finished and opens no session', async () => {
        const phone = await signUp();
        const { attemptId, key } = await requestJoin(t.client, phone);
        await approveOk(t.client, phone, attemptId);
        joinedDevice(await finishEphemeral(t.client, key, attemptId), phone, key);
        const sessions = await liveSessions(phone.accountId);
        const seq = await lastSeq(t.store, phone.accountId);
        expectProblem(await finishEphemeral(t.client, key, attemptId), 409, 'join_already_finished');
        const persist = await t.client.call('POST', `${JOIN}/finish`, { body: { attempt_id: attemptId, persist_device: true }, key });
        expectProblem(persist, 409, 'join_already_finished');
        assert.equal(await liveSessions(phone.accountId), sessions);
        assert.equal(await lastSeq(t.store, phone.accountId), seq);
      });

      it('concurrent finishes of one attempt: exactly one session', async () => {
        const phone = await signUp();
        const { attemptId, key } = await requestJoin(t.client, phone);
        await approveOk(t.client, phone, attemptId);
        const results = await Promise.all(Array.from({ length: 4 }, () => finishEphemeral(t.client, key, attemptId)));
        assert.deepEqual(results.map((r) => r.status).sort(), [200, 409, 409, 409]);
        for (const r of results.filter((r) => r.status === 409)) assert.equal(r.body.code, 'join_already_finished');
      });

      it('finish, poll and register-options with another key than the redeemer: 403 join_key_mismatch, nothing changed', async () => {
        const phone = await signUp();
        const { attemptId, key } = await requestJoin(t.client, phone);
        await approveOk(t.client, phone, attemptId);
        const thief = await t.client.newKey();
        expectProblem(await finishEphemeral(t.client, thief, attemptId), 403, 'join_key_mismatch');
        expectProblem(await attempt(t.client, thief, attemptId), 403, 'join_key_mismatch');
        expectProblem(await registerOptions(t.client, thief, attemptId), 403, 'join_key_mismatch');
        assert.equal(await attemptStatus(t.client, key, attemptId), 'approved');
        assert.equal((await attemptRow(t.store, attemptId))?.challenge, null);
        joinedDevice(await finishEphemeral(t.client, key, attemptId), phone, key);
      });

      it('a persist finish by another key with a genuine credential is refused and stores nothing', async () => {
        const phone = await signUp();
        const { attemptId, key } = await requestJoin(t.client, phone);
        await approveOk(t.client, phone, attemptId);
        const options = await registerOptions(t.client, key, attemptId);
        assert.equal(options.status, 200);
        const credential = await new SoftwareAuthenticator().createCredential(options.body.options, t.client.publicOrigin);
        const before = await passkeyCount(t.store, phone.accountId);
        const thief = await t.client.newKey();
        const res = await t.client.call('POST', `${JOIN}/finish`, { body: { attempt_id: attemptId, persist_device: true, credential }, key: thief, headers: { 'idempotency-key': randomUUID() } });
        expectProblem(res, 403, 'join_key_mismatch');
        assert.equal(await passkeyCount(t.store, phone.accountId), before);
        assert.equal(await attemptStatus(t.client, key, attemptId), 'approved');
      });

      it('awaiting approval → denied; then finish 403 join_denied, approve and deny 409 invalid_transition', async () => {
        const phone = await signUp();
        const { attemptId, key } = await requestJoin(t.client, phone);
        const res = await deny(t.client, phone, attemptId);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.status, 'denied');
        assert.equal(await attemptStatus(t.client, key, attemptId), 'denied');
        const seq = await lastSeq(t.store, phone.accountId);
        expectProblem(await finishEphemeral(t.client, key, attemptId), 403, 'join_denied');
        expectProblem(await approve(t.client, phone, attemptId), 409, 'invalid_transition');
        expectProblem(await deny(t.client, phone, attemptId), 409, 'invalid_transition');
        assert.equal(await attemptStatus(t.client, key, attemptId), 'denied');
        assert.equal(await lastSeq(t.store, phone.accountId), seq);
        assert.equal(await passkeyCount(t.store, phone.accountId), 1);
      });

      it('a denied attempt gets no creation options either (403 join_denied, as finish answers)', async () => {
        const phone = await signUp();
        const { attemptId, key } = await requestJoin(t.client, phone);
        assert.equal((await deny(t.client, phone, attemptId)).status, 200);
        expectProblem(await registerOptions(t.client, key, attemptId), 403, 'join_denied');
      });

      it('approved → approve again: 409 invalid_transition; the same Idempotency-Key replays instead, with no second signal', async () => {
        const phone = await signUp();
        const { attemptId } = await requestJoin(t.client, phone);
        const idempotencyKey = randomUUID();
        const first = await approve(t.client, phone, attemptId, { idempotencyKey });
        assert.equal(first.status, 200);
        const seq = await lastSeq(t.store, phone.accountId);
        const replay = await approve(t.client, phone, attemptId, { idempotencyKey, stepUp: false });
        assert.equal(replay.status, 200, JSON.stringify(replay.body));
        assert.equal(replay.headers.get('vid-idempotent-replay'), 'true');
        assert.deepEqual(replay.body, first.body);
        assert.equal(await lastSeq(t.store, phone.accountId), seq);
        expectProblem(await approve(t.client, phone, attemptId), 409, 'invalid_transition');
        expectProblem(await deny(t.client, phone, attemptId), 409, 'invalid_transition');
      });

      it('finished → approve or deny: 409 invalid_transition', async () => {
        const phone = await signUp();
        const { attemptId, key } = await requestJoin(t.client, phone);
        await approveOk(t.client, phone, attemptId);
        joinedDevice(await finishEphemeral(t.client, key, attemptId), phone, key);
        expectProblem(await approve(t.client, phone, attemptId), 409, 'invalid_transition');
        expectProblem(await deny(t.client, phone, attemptId), 409, 'invalid_transition');
        assert.equal(await attemptStatus(t.client, key, attemptId), 'finished');
      });

      it('approve without step-up: 403 step_up_required; without Idempotency-Key: 400 idempotency_key_required; nothing changed', async () => {
        const phone = await signUp();
        const { attemptId, key } = await requestJoin(t.client, phone);
        expectProblem(await approve(t.client, phone, attemptId, { stepUp: false }), 403, 'step_up_required');
        expectProblem(await approve(t.client, phone, attemptId, { idempotencyKey: null }), 400, 'idempotency_key_required');
        // A step-up of another device of the same account does not count for this session.
        const tablet = await t.client.logIn(phone.authenticator);
        const tabletDevice: Device = { ...phone, key: tablet.key, tokens: tablet.body };
        const foreign = await stepUp(t.client, tabletDevice);
        const res = await t.client.as(phone, 'POST', `${JOIN}/approve`, { body: { attempt_id: attemptId }, headers: { 'vid-step-up': foreign, 'idempotency-key': randomUUID() } });
        expectProblem(res, 403, 'step_up_required');
        assert.equal(await attemptStatus(t.client, key, attemptId), 'awaiting_approval');
        expectProblem(await finishEphemeral(t.client, key, attemptId), 403, 'JOIN_NOT_APPROVED');
      });

      it('approve or deny from another account, or of an unknown id: 404 join_attempt_not_found, nothing changed', async () => {
        const phone = await signUp();
        const mallory = await signUp('mallory');
        const { attemptId, key } = await requestJoin(t.client, phone);
        const seq = await lastSeq(t.store, phone.accountId);
        expectProblem(await approve(t.client, mallory, attemptId), 404, 'join_attempt_not_found');
        expectProblem(await deny(t.client, mallory, attemptId), 404, 'join_attempt_not_found');
        expectProblem(await approve(t.client, phone, 'join_doesnotexist'), 404, 'join_attempt_not_found');
        expectProblem(await deny(t.client, phone, 'join_doesnotexist'), 404, 'join_attempt_not_found');
        assert.equal(await attemptStatus(t.client, key, attemptId), 'awaiting_approval');
        assert.equal(await lastSeq(t.store, phone.accountId), seq);
        assert.deepEqual((await t.client.as(mallory, 'GET', `${JOIN}/pending`)).body.data, []);
      });

      it('unknown attempt ids: 404 join_attempt_not_found on poll, register-options and finish', async () => {
        const key = await t.client.newKey();
        expectProblem(await attempt(t.client, key, 'join_doesnotexist'), 404, 'join_attempt_not_found');
        expectProblem(await registerOptions(t.client, key, 'join_doesnotexist'), 404, 'join_attempt_not_found');
        expectProblem(await finishEphemeral(t.client, key, 'join_doesnotexist'), 404, 'join_attempt_not_found');
      });

      it('redeem, poll and finish need a DPoP proof: 401 without one', async () => {
        const phone = await signUp();
        const { code } = await issueCode(t.client, phone);
        const res = await t.client.call('POST', `${JOIN}/redeem`, { body: { username: phone.username, code }, headers: { 'idempotency-key': randomUUID() } });
        assert.equal(res.status, 401);
        // The refused request did not spend the code.
        await redeemOk(t.client, phone.username, code);
      });
    });

    describe('codes', () => {
      it('expiry: a code redeems at 119 s and not at 121 s (422 join_code_invalid)', async () => {
        const phone = await signUp();
        const early = await issueCode(t.client, phone);
        t.clock.advance(CODE_TTL_MS - 1000);
        await redeemOk(t.client, phone.username, early.code);
        const late = await issueCode(t.client, phone);
        t.clock.advance(CODE_TTL_MS + 1000);
        expectProblem((await redeem(t.client, phone.username, late.code)).res, 422, 'join_code_invalid');
      });

      it('a used code: 422 join_code_invalid, the same answer as a wrong one', async () => {
        const phone = await signUp();
        const { code } = await issueCode(t.client, phone);
        await redeemOk(t.client, phone.username, code);
        const used = (await redeem(t.client, phone.username, code)).res;
        const wrong = (await redeem(t.client, phone.username, otherCode(code))).res;
        expectProblem(used, 422, 'join_code_invalid');
        expectProblem(wrong, 422, 'join_code_invalid');
        // No oracle: the bodies differ only in the request id.
        const strip = (b: any) => ({ ...b, request_id: undefined });
        assert.deepEqual(strip(used.body), strip(wrong.body));
        assert.equal(used.headers.get('content-type'), wrong.headers.get('content-type'));
      });

      it('a new issue voids the session\'s previous code; other sessions\' codes stay live', async () => {
        const phone = await signUp();
        const first = await issueCode(t.client, phone);
        let second = await issueCode(t.client, phone);
        while (second.code === first.code) second = await issueCode(t.client, phone);
        expectProblem((await redeem(t.client, phone.username, first.code)).res, 422, 'join_code_invalid');
        // A second trusted session of the account has its own code, untouched by the first's issues.
        const tablet = await t.client.logIn(phone.authenticator);
        const tabletDevice: Device = { ...phone, key: tablet.key, tokens: tablet.body };
        const tabletCode = await issueCode(t.client, tabletDevice);
        let third = await issueCode(t.client, phone);
        while (third.code === tabletCode.code || third.code === second.code) third = await issueCode(t.client, phone);
        expectProblem((await redeem(t.client, phone.username, second.code)).res, 422, 'join_code_invalid');
        await redeemOk(t.client, phone.username, third.code);
        await redeemOk(t.client, phone.username, tabletCode.code);
      });

      it('a code for another username: 422 join_code_invalid, and the code still works for its own', async () => {
        const alice = await signUp('alice');
        const bob = await signUp('bob');
        const { code } = await issueCode(t.client, alice);
        expectProblem((await redeem(t.client, bob.username, code)).res, 422, 'join_code_invalid');
        expectProblem((await redeem(t.client, uniqueName('nobody'), code)).res, 422, 'join_code_invalid');
        expectProblem((await redeem(t.client, '-not a name-', code)).res, 422, 'join_code_invalid');
        assert.deepEqual(await joinSignals(t.store, bob.accountId), []);
        await redeemOk(t.client, alice.username, code);
      });

      it('the username is matched like a login name: case and width do not matter', async () => {
        const phone = await signUp('Casey');
        const { code } = await issueCode(t.client, phone);
        await redeemOk(t.client, phone.username.toUpperCase(), code);
        const wide = await issueCode(t.client, phone);
        await redeemOk(t.client, fullwidth(phone.username), wide.code);
      });

      it('four wrong codes leave the live code good', async () => {
        const phone = await signUp();
        const { code } = await issueCode(t.client, phone);
        for (let i = 1; i <= 4; i++) expectProblem((await redeem(t.client, phone.username, otherCode(code, i))).res, 422, 'join_code_invalid');
        await redeemOk(t.client, phone.username, code);
      });

      it('five wrong codes for a username void its live code: then the right code is 422 too; a new code works', async () => {
        const phone = await signUp();
        const bystander = await signUp();
        const bystanderCode = await issueCode(t.client, bystander);
        const { code } = await issueCode(t.client, phone);
        for (let i = 1; i <= 5; i++) expectProblem((await redeem(t.client, phone.username, otherCode(code, i))).res, 422, 'join_code_invalid');
        expectProblem((await redeem(t.client, phone.username, code)).res, 422, 'join_code_invalid');
        const rows = await t.store.handle.db.selectFrom('join_codes').selectAll().where('account_id', '=', phone.accountId).execute();
        assert.ok(rows.every((r) => r.voided_at !== null && r.used_at === null));
        // The trusted device is told its code died (GET /auth/join/code then says voided).
        assert.deepEqual(await joinSignals(t.store, phone.accountId), ['join.code.changed /auth/join/code']);
        // Another username's code is not affected, and the person simply issues a new code.
        await redeemOk(t.client, bystander.username, bystanderCode.code);
        const fresh = await issueCode(t.client, phone);
        await redeemOk(t.client, phone.username, fresh.code);
      });

      it('concurrent redeems of one code: exactly one 201, the others 422, one attempt', async () => {
        const phone = await signUp();
        const { code } = await issueCode(t.client, phone);
        const results = await Promise.all(Array.from({ length: 4 }, () => redeem(t.client, phone.username, code)));
        const statuses = results.map((r) => r.res.status).sort();
        assert.deepEqual(statuses, [201, 422, 422, 422]);
        for (const r of results.filter((r) => r.res.status === 422)) assert.equal(r.res.body.code, 'join_code_invalid');
        const attempts = await t.store.handle.db.selectFrom('join_attempts').selectAll().where('account_id', '=', phone.accountId).execute();
        assert.equal(attempts.length, 1);
        const winner = results.find((r) => r.res.status === 201)!;
        assert.equal(attempts[0]!.jkt, winner.key.jkt);
        assert.deepEqual(await joinSignals(t.store, phone.accountId), ['join.code.changed /auth/join/code', 'join.requested /auth/join/pending']);
      });

      it('malformed codes are refused by validation (400), not counted as guesses', async () => {
        const phone = await signUp();
        const { code } = await issueCode(t.client, phone);
        for (const bad of ['12345', '1234567', 'abcdef', ' 12345']) {
          const res = (await redeem(t.client, phone.username, bad)).res;
          expectProblem(res, 400, 'validation_failed', bad);
          // The box it concerns is named, so the app can say "a code is 6 digits" beside it.
          assert.deepEqual(res.body.errors.map((e: { path: string }) => e.path), ['/code'], JSON.stringify(res.body.errors));
        }
        await redeemOk(t.client, phone.username, code);
      });

      it('what each device can say of a code that fails: malformed, or one answer for wrong, expired and used; the issuer sees which', async () => {
        const phone = await signUp();
        const state = async () => (await t.client.as(phone, 'GET', `${JOIN}/code`)).body.status;
        const strip = (b: any) => ({ ...b, request_id: undefined });
        // Malformed: the new device's own typing, told apart (400, pointing at /code).
        const malformed = (await redeem(t.client, phone.username, '12 34')).res;
        expectProblem(malformed, 400, 'validation_failed');
        // Wrong, expired and used: one answer to the new device (PRODUCT §1: no oracle for guessers).
        const wrongCode = await issueCode(t.client, phone);
        const wrong = (await redeem(t.client, phone.username, otherCode(wrongCode.code))).res;
        assert.equal(await state(), 'active', 'a wrong code leaves the issued one live');
        t.clock.advance(CODE_TTL_MS + 1000);
        const expired = (await redeem(t.client, phone.username, wrongCode.code)).res;
        assert.equal(await state(), 'expired', 'the issuing device can say "the code expired: here is a new one"');
        const usedCode = await issueCode(t.client, phone);
        const from = await lastSeq(t.store, phone.accountId);
        await redeemOk(t.client, phone.username, usedCode.code);
        assert.equal(await state(), 'used');
        assert.deepEqual(await joinSignals(t.store, phone.accountId, from), ['join.code.changed /auth/join/code', 'join.requested /auth/join/pending'], 'the issuing device hears its code was used, and takes it off the screen');
        const used = (await redeem(t.client, phone.username, usedCode.code)).res;
        for (const res of [wrong, expired, used]) expectProblem(res, 422, 'join_code_invalid');
        assert.deepEqual(strip(expired.body), strip(wrong.body));
        assert.deepEqual(strip(used.body), strip(wrong.body));
      });
    });

    describe('attempt expiry (10 minutes)', () => {
      it('awaiting approval → expired: poll says expired, approve/deny/finish/register-options 410, pending drops it', async () => {
        const phone = await signUp();
        const { attemptId, key } = await requestJoin(t.client, phone);
        t.clock.advance(ATTEMPT_TTL_MS - 1000);
        await renew(t.client, phone);
        assert.equal(await attemptStatus(t.client, key, attemptId), 'awaiting_approval');
        assert.equal((await t.client.as(phone, 'GET', `${JOIN}/pending`)).body.data.length, 1);
        t.clock.advance(2000);
        assert.equal(await attemptStatus(t.client, key, attemptId), 'expired');
        const seq = await lastSeq(t.store, phone.accountId);
        expectProblem(await approve(t.client, phone, attemptId), 410, 'join_attempt_expired');
        expectProblem(await deny(t.client, phone, attemptId), 410, 'join_attempt_expired');
        expectProblem(await finishEphemeral(t.client, key, attemptId), 410, 'join_attempt_expired');
        expectProblem(await registerOptions(t.client, key, attemptId), 410, 'join_attempt_expired');
        assert.deepEqual((await t.client.as(phone, 'GET', `${JOIN}/pending`)).body.data, []);
        assert.equal(await lastSeq(t.store, phone.accountId), seq);
      });

      it('approved → expired: finish after 10 minutes is 410 join_attempt_expired and opens no session', async () => {
        const phone = await signUp();
        const { attemptId, key } = await requestJoin(t.client, phone);
        await approveOk(t.client, phone, attemptId);
        const sessions = await liveSessions(phone.accountId);
        t.clock.advance(ATTEMPT_TTL_MS);
        assert.equal(await attemptStatus(t.client, key, attemptId), 'expired');
        expectProblem(await finishEphemeral(t.client, key, attemptId), 410, 'join_attempt_expired');
        expectProblem(await registerOptions(t.client, key, attemptId), 410, 'join_attempt_expired');
        assert.equal(await liveSessions(phone.accountId), sessions);
      });

      it('a persist finish whose options were fetched in time but sent after expiry: 410, nothing stored', async () => {
        const phone = await signUp();
        const { attemptId, key } = await requestJoin(t.client, phone);
        await approveOk(t.client, phone, attemptId);
        const options = await registerOptions(t.client, key, attemptId);
        const credential = await new SoftwareAuthenticator().createCredential(options.body.options, t.client.publicOrigin);
        const before = await passkeyCount(t.store, phone.accountId);
        t.clock.advance(ATTEMPT_TTL_MS);
        const res = await t.client.call('POST', `${JOIN}/finish`, { body: { attempt_id: attemptId, persist_device: true, credential }, key, headers: { 'idempotency-key': randomUUID() } });
        expectProblem(res, 410, 'join_attempt_expired');
        assert.equal(await passkeyCount(t.store, phone.accountId), before);
      });

      it('finished and denied attempts keep their state after the 10 minutes', async () => {
        const phone = await signUp();
        const done = await requestJoin(t.client, phone);
        await approveOk(t.client, phone, done.attemptId);
        joinedDevice(await finishEphemeral(t.client, done.key, done.attemptId), phone, done.key);
        const denied = await requestJoin(t.client, phone);
        assert.equal((await deny(t.client, phone, denied.attemptId)).status, 200);
        t.clock.advance(ATTEMPT_TTL_MS + 1000);
        assert.equal(await attemptStatus(t.client, done.key, done.attemptId), 'finished');
        assert.equal(await attemptStatus(t.client, denied.key, denied.attemptId), 'denied');
        expectProblem(await finishEphemeral(t.client, done.key, done.attemptId), 409, 'join_already_finished');
        expectProblem(await finishEphemeral(t.client, denied.key, denied.attemptId), 403, 'join_denied');
      });
    });

    describe('ephemeral sessions', () => {
      it('cannot issue codes, list or decide attempts, nor step up (403 ephemeral_session)', async () => {
        const phone = await signUp();
        const laptop = await joinNewDevice(t.client, phone, { persist: false });
        assert.equal(laptop.tokens.trusted, false);
        const { attemptId, key } = await requestJoin(t.client, phone);
        expectProblem(await t.client.as(laptop, 'POST', `${JOIN}/issue`, { headers: { 'idempotency-key': randomUUID() } }), 403, 'ephemeral_session');
        expectProblem(await t.client.as(laptop, 'GET', `${JOIN}/pending`), 403, 'ephemeral_session');
        expectProblem(await deny(t.client, laptop, attemptId), 403, 'ephemeral_session');
        expectProblem(await t.client.as(laptop, 'POST', '/api/v1/auth/step-up/begin'), 403, 'ephemeral_session');
        assert.equal(await attemptStatus(t.client, key, attemptId), 'awaiting_approval');
        const codes = await t.store.handle.db.selectFrom('join_codes').select('id').where('session_id', '=', laptop.tokens.session_id).execute();
        assert.equal(codes.length, 0);
      });

      it('cannot approve: 403 and the attempt stays awaiting approval', async () => {
        const phone = await signUp();
        const laptop = await joinNewDevice(t.client, phone, { persist: false });
        const { attemptId, key } = await requestJoin(t.client, phone);
        const res = await approve(t.client, laptop, attemptId, { stepUp: false });
        assert.equal(res.status, 403, JSON.stringify(res.body));
        assert.equal(await attemptStatus(t.client, key, attemptId), 'awaiting_approval');
        // The answer names the real reason: a step-up would not help an ephemeral session.
        expectProblem(res, 403, 'ephemeral_session');
      });

      it('an ephemeral session renews only up to its 12 h cap', async () => {
        const phone = await signUp();
        const laptop = await joinNewDevice(t.client, phone, { persist: false });
        t.clock.advance(11 * 3600_000);
        await renew(t.client, laptop);
        t.clock.advance(3600_000);
        const res = await t.client.call('POST', '/api/v1/auth/token/renew', { body: { refresh_token: laptop.tokens.refresh_token }, key: laptop.key });
        assert.equal(res.status, 401, JSON.stringify(res.body));
      });
    });

    describe('pending list and signals', () => {
      it('pending shows the new device: user agent, device label, no location on loopback, times', async () => {
        const phone = await signUp();
        const { code } = await issueCode(t.client, phone);
        const createdAt = t.clock.now();
        const { attemptId } = await redeemOk(t.client, phone.username, code, { headers: { 'user-agent': FIREFOX_WINDOWS } });
        const other = await requestJoin(t.client, phone);
        assert.equal((await deny(t.client, phone, other.attemptId)).status, 200);
        const res = await t.client.as(phone, 'GET', `${JOIN}/pending`);
        assert.equal(res.status, 200);
        assert.equal(res.body.has_more, false);
        assert.equal(res.body.data.length, 1, 'only attempts awaiting approval');
        const [item] = res.body.data;
        assert.equal(item.attempt_id, attemptId);
        assert.equal(item.user_agent, FIREFOX_WINDOWS);
        assert.equal(item.device_label, 'Firefox on Windows');
        assert.equal(item.location, null);
        assert.equal(item.place, null);
        assert.equal(item.ip, '127.0.0.1');
        assert.equal(Date.parse(item.created_at), createdAt);
        assert.equal(Date.parse(item.expires_at), createdAt + ATTEMPT_TTL_MS);
      });

      it('join.code.changed and join.requested on redeem, join.changed on approve and finish, and on deny; none on refusals', async () => {
        const phone = await signUp();
        const from = await lastSeq(t.store, phone.accountId);
        const { attemptId, key } = await requestJoin(t.client, phone);
        const redeemed = ['join.code.changed /auth/join/code', 'join.requested /auth/join/pending'];
        assert.deepEqual(await joinSignals(t.store, phone.accountId, from), redeemed);
        await finishEphemeral(t.client, key, attemptId);
        await approve(t.client, phone, attemptId, { stepUp: false });
        assert.deepEqual(await joinSignals(t.store, phone.accountId, from), redeemed);
        await approveOk(t.client, phone, attemptId);
        const laptop = joinedDevice(await finishEphemeral(t.client, key, attemptId), phone, key);
        assert.ok(laptop);
        assert.deepEqual(await joinSignals(t.store, phone.accountId, from), [
          ...redeemed,
          'join.changed /auth/join/pending',
          'join.changed /auth/join/pending',
        ]);
        const mid = await lastSeq(t.store, phone.accountId);
        const second = await requestJoin(t.client, phone);
        await deny(t.client, phone, second.attemptId);
        assert.deepEqual(await joinSignals(t.store, phone.accountId, mid), [...redeemed, 'join.changed /auth/join/pending']);
      });
    });
  });

  describe(`join: where the new device is, behind a proxy [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend, { ...RELAXED_JOIN_LIMITS, TRUST_PROXY: '1' });
    });
    after(() => t.close());

    async function locationFor(forwardedFor: string): Promise<{ ip: string; location: string | null; place: unknown }> {
      const phone = await t.client.signUp(uniqueName('geo'));
      const { code } = await issueCode(t.client, phone);
      await redeemOk(t.client, phone.username, code, { headers: { 'x-forwarded-for': forwardedFor } });
      const res = await t.client.as(phone, 'GET', `${JOIN}/pending`);
      assert.equal(res.status, 200);
      return { ip: res.body.data[0].ip, location: res.body.data[0].location, place: res.body.data[0].place };
    }

    it('a public address gets an approximate "City, CC" from the offline database, and the same place as city and country', async () => {
      assert.deepEqual(await locationFor('2.125.160.216'), { ip: '2.125.160.216', location: 'Belfast, GB', place: { city: 'Belfast', country: 'GB' } });
    });

    it('private, loopback and link-local addresses get no location (not a made-up one)', async () => {
      for (const ip of ['192.168.1.1', '10.1.2.3', '172.16.0.1', '127.0.0.1', '169.254.1.1', '100.64.0.1']) {
        assert.deepEqual(await locationFor(ip), { ip, location: null, place: null }, ip);
      }
    });
  });
}
