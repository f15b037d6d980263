// Guessing limits on redeem and start (issue: "rate-limited ... so that guessing a code is
// hopeless"; docs/join.md "The odds"; decision 030). Wrong guesses count against the code itself
// (five void it, and the trusted device is told) and against the guessing client, per address
// (JOIN_PER_CLIENT_PER_HOUR) and per DPoP key (JOIN_PER_KEY_PER_HOUR), in fixed one-hour windows:
// 429 too_many_attempts with Retry-After. Never against the username alone: a stranger's guesses
// or starts cannot lock the person out of their own fresh code.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { backends } from '../helpers/backends.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { uniqueName } from '../helpers/client.js';
import type { CallResult, Device } from '../helpers/client.js';
import { CODE_TTL_MS, JOIN, issueCode, joinNewDevice, joinSignals, lastSeq, otherCode, redeem, redeemOk, start } from '../helpers/join.js';
import { expectProblem } from '../helpers/problem.js';

const HOUR_MS = 3600_000;

/** Moves the clock to just after the start of the next one-hour window, so a test owns a whole window. */
function nextWindow(t: TestApp): void {
  t.clock.set(Math.floor(t.clock.now() / HOUR_MS) * HOUR_MS + HOUR_MS + 1000);
}

function expectLimited(res: CallResult, t: TestApp): number {
  expectProblem(res, 429, 'too_many_attempts');
  const retryAfter = Number(res.headers.get('retry-after'));
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After: ${res.headers.get('retry-after')}`);
  // The fixed window ends at the next full hour.
  const windowEnd = Math.floor(t.clock.now() / HOUR_MS) * HOUR_MS + HOUR_MS;
  assert.equal(retryAfter, Math.ceil((windowEnd - t.clock.now()) / 1000));
  return retryAfter;
}

const from = (address: string) => ({ headers: { 'x-forwarded-for': address } });

/** GET /auth/join/code: the state of the code this session issued last. */
function codeState(t: TestApp, device: Device): Promise<CallResult> {
  return t.client.as(device, 'GET', `${JOIN}/code`);
}

async function codeStateOk(t: TestApp, device: Device): Promise<{ status: string; wrong_guesses: number; expires_at: string }> {
  const res = await codeState(t, device);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

/** A trusted device whose tokens are current at the test's clock (tests move it by hours). */
async function phoneOf(t: TestApp, prefix: string): Promise<Device> {
  return t.client.signUp(uniqueName(prefix));
}

for (const backend of backends) {
  describe(`join limits: strangers cannot lock a person out of their own code [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      // The default limits; addresses told apart by X-Forwarded-For.
      t = await startTestApp(backend, { TRUST_PROXY: '1' });
    });
    after(() => t.close());
    beforeEach(() => nextWindow(t));

    it('20 wrong redeems of a username from another address do not stop the person\'s fresh code from their own device', async () => {
      const phone = await phoneOf(t, 'victim');
      for (let i = 0; i < 20; i++) expectProblem((await redeem(t.client, phone.username, String(100000 + i), from('203.0.113.66'))).res, 422, 'join_code_invalid');
      const { code } = await issueCode(t.client, phone);
      await redeemOk(t.client, phone.username, code, from('198.51.100.10'));
    });

    it('five wrong guesses void the live code: its right digits are refused, the trusted device sees it voided and is signalled, and a new code works', async () => {
      const phone = await phoneOf(t, 'voided');
      const { code } = await issueCode(t.client, phone);
      const seq = await lastSeq(t.store, phone.accountId);
      for (let i = 1; i <= 4; i++) expectProblem((await redeem(t.client, phone.username, otherCode(code, i), from('203.0.113.67'))).res, 422, 'join_code_invalid');
      const counting = await codeStateOk(t, phone);
      assert.equal(counting.status, 'active');
      assert.equal(counting.wrong_guesses, 4);
      assert.deepEqual(await joinSignals(t.store, phone.accountId, seq), [], 'no signal before the code dies');
      expectProblem((await redeem(t.client, phone.username, otherCode(code, 5), from('203.0.113.67'))).res, 422, 'join_code_invalid');

      const state = await codeStateOk(t, phone);
      assert.equal(state.status, 'voided');
      assert.equal(state.wrong_guesses, 5);
      assert.deepEqual(await joinSignals(t.store, phone.accountId, seq), ['join.code.changed /auth/join/code']);
      // The right digits no longer work, with the same answer as any wrong code.
      expectProblem((await redeem(t.client, phone.username, code, from('198.51.100.11'))).res, 422, 'join_code_invalid');
      // The stranger goes on guessing; there is no live code to count against, nor a username budget.
      for (let i = 6; i <= 20; i++) expectProblem((await redeem(t.client, phone.username, otherCode(code, i), from('203.0.113.67'))).res, 422, 'join_code_invalid');
      assert.deepEqual(await joinSignals(t.store, phone.accountId, seq), ['join.code.changed /auth/join/code'], 'one signal per voided code');
      const fresh = await issueCode(t.client, phone);
      assert.equal((await codeStateOk(t, phone)).status, 'active');
      await redeemOk(t.client, phone.username, fresh.code, from('198.51.100.11'));
      const used = await codeStateOk(t, phone);
      assert.equal(used.status, 'used');
      assert.equal(used.wrong_guesses, 0);
    });

    it('starts for a username from strangers do not lock the person out of their code', async () => {
      const phone = await phoneOf(t, 'started');
      for (let i = 0; i < 25; i++) assert.equal((await start(t.client, phone.username, from(`203.0.113.${70 + (i % 3)}`))).res.status, 201);
      const { code } = await issueCode(t.client, phone);
      await redeemOk(t.client, phone.username, code, from('198.51.100.12'));
    });

    it('GET /auth/join/code: 404 before the session issued one, expired after its 120 s; an ephemeral session may not ask', async () => {
      const phone = await phoneOf(t, 'state');
      expectProblem(await codeState(t, phone), 404, 'join_code_not_found');
      const { expires_at } = await issueCode(t.client, phone);
      const active = await codeStateOk(t, phone);
      assert.deepEqual(active, { status: 'active', wrong_guesses: 0, expires_at, schema_version: 1 });
      t.clock.advance(CODE_TTL_MS);
      assert.equal((await codeStateOk(t, phone)).status, 'expired');
      const res = await codeState(t, phone);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      const laptop = await joinNewDevice(t.client, phone, { persist: false });
      expectProblem(await codeState(t, laptop), 403, 'ephemeral_session');
    });
  });

  describe(`join limits: per client [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend, { JOIN_PER_KEY_PER_HOUR: '100000', JOIN_PER_CLIENT_PER_HOUR: '3' });
    });
    after(() => t.close());
    beforeEach(() => nextWindow(t));

    it('the 4th redeem or start from one client in an hour is 429 with Retry-After, whatever the username; a refused redeem spends nothing and is no wrong guess', async () => {
      const names = [uniqueName('a'), uniqueName('b'), uniqueName('c')];
      for (const name of names) expectProblem((await redeem(t.client, name, '000000')).res, 422, 'join_code_invalid');
      const phone = await phoneOf(t, 'd');
      const { code } = await issueCode(t.client, phone);
      expectLimited((await redeem(t.client, phone.username, code)).res, t);
      expectLimited((await redeem(t.client, phone.username, otherCode(code))).res, t);
      expectLimited((await start(t.client, phone.username)).res, t);
      // Without TRUST_PROXY an X-Forwarded-For header does not make another client.
      expectLimited((await redeem(t.client, phone.username, code, { headers: { 'x-forwarded-for': '203.0.113.9' } })).res, t);
      const rows = await t.store.handle.db.selectFrom('join_codes').selectAll().where('account_id', '=', phone.accountId).execute();
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.used_at, null, 'a refused redeem spent the code');
      assert.equal(Number(rows[0]!.failures), 0, 'a refused redeem counted as a wrong guess');
    });

    it('unknown usernames count against the client too (start cannot enumerate accounts freely)', async () => {
      for (let i = 0; i < 3; i++) expectProblem((await start(t.client, uniqueName('ghost'))).res, 404, 'account_not_found');
      expectLimited((await start(t.client, uniqueName('ghost'))).res, t);
    });

    it('after Retry-After seconds the client may try again', async () => {
      for (let i = 0; i < 3; i++) await start(t.client, uniqueName('x'));
      const retryAfter = expectLimited((await start(t.client, uniqueName('x'))).res, t);
      t.clock.advance(retryAfter * 1000);
      const phone = await phoneOf(t, 'y');
      const { code } = await issueCode(t.client, phone);
      await redeemOk(t.client, phone.username, code);
    });
  });

  describe(`join limits: per DPoP key [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend, { JOIN_PER_KEY_PER_HOUR: '3', JOIN_PER_CLIENT_PER_HOUR: '100000', TRUST_PROXY: '1' });
    });
    after(() => t.close());
    beforeEach(() => nextWindow(t));

    it('the 4th redeem or start signed by one key in an hour is 429, from any address; another key is not limited', async () => {
      const key = await t.client.newKey();
      expectProblem((await redeem(t.client, uniqueName('k'), '000000', { key, ...from('203.0.113.80') })).res, 422, 'join_code_invalid');
      expectProblem((await redeem(t.client, uniqueName('k'), '000000', { key, ...from('203.0.113.81') })).res, 422, 'join_code_invalid');
      expectProblem((await start(t.client, uniqueName('k'), { key, ...from('203.0.113.82') })).res, 404, 'account_not_found');
      const phone = await phoneOf(t, 'keyed');
      const { code } = await issueCode(t.client, phone);
      expectLimited((await redeem(t.client, phone.username, code, { key, ...from('203.0.113.83') })).res, t);
      expectLimited((await start(t.client, phone.username, { key, ...from('203.0.113.84') })).res, t);
      await redeemOk(t.client, phone.username, code, from('203.0.113.83'));
    });
  });

  describe(`join limits: per client behind a proxy [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend, { JOIN_PER_KEY_PER_HOUR: '100000', JOIN_PER_CLIENT_PER_HOUR: '3', TRUST_PROXY: '1' });
    });
    after(() => t.close());
    beforeEach(() => nextWindow(t));

    it('clients are told apart by their forwarded address: one client\'s limit does not block another', async () => {
      const mallory = { 'x-forwarded-for': '203.0.113.7' };
      for (let i = 0; i < 3; i++) await redeem(t.client, uniqueName('m'), '000000', { headers: mallory });
      const phone = await phoneOf(t, 'p');
      const { code } = await issueCode(t.client, phone);
      expectLimited((await redeem(t.client, phone.username, code, { headers: mallory })).res, t);
      await redeemOk(t.client, phone.username, code, { headers: { 'x-forwarded-for': '198.51.100.4' } });
    });
  });
}
