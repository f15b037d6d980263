// Guessing limits on redeem and start (issue: "rate-limited per username and per client so that
// guessing a code is hopeless"; docs/join.md "The odds"): JOIN_PER_USERNAME_PER_HOUR and
// JOIN_PER_CLIENT_PER_HOUR, fixed one-hour windows, 429 too_many_attempts with Retry-After.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { backends } from '../helpers/backends.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { uniqueName } from '../helpers/client.js';
import type { CallResult } from '../helpers/client.js';
import { expectProblem, fullwidth, issueCode, otherCode, redeem, redeemOk, start } from '../helpers/join.js';

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

for (const backend of backends) {
  describe(`join limits: per username [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend, { JOIN_PER_USERNAME_PER_HOUR: '3', JOIN_PER_CLIENT_PER_HOUR: '100000' });
    });
    after(() => t.close());
    beforeEach(() => nextWindow(t));

    it('the 4th redeem for a username in an hour is 429 with Retry-After, even with the right code, which stays unspent', async () => {
      const phone = await t.client.signUp(uniqueName('lim'));
      const { code } = await issueCode(t.client, phone);
      for (let i = 1; i <= 3; i++) expectProblem((await redeem(t.client, phone.username, otherCode(code, i))).res, 422, 'join_code_invalid');
      expectLimited((await redeem(t.client, phone.username, code)).res, t);
      const rows = await t.store.handle.db.selectFrom('join_codes').selectAll().where('account_id', '=', phone.accountId).execute();
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.used_at, null, 'a refused redeem spent the code');
      assert.equal(Number(rows[0]!.failures), 3, 'a refused redeem counted as a wrong code');
      const attempts = await t.store.handle.db.selectFrom('join_attempts').select('id').where('account_id', '=', phone.accountId).execute();
      assert.equal(attempts.length, 0);
      // Another username from the same client is not limited.
      const other = await t.client.signUp(uniqueName('lim'));
      const otherCodeIssued = await issueCode(t.client, other);
      await redeemOk(t.client, other.username, otherCodeIssued.code);
    });

    it('after Retry-After seconds the username may redeem again', async () => {
      const phone = await t.client.signUp(uniqueName('lim'));
      const first = await issueCode(t.client, phone);
      for (let i = 1; i <= 3; i++) await redeem(t.client, phone.username, otherCode(first.code, i));
      const retryAfter = expectLimited((await redeem(t.client, phone.username, first.code)).res, t);
      t.clock.advance(retryAfter * 1000 - 2000);
      expectLimited((await redeem(t.client, phone.username, first.code)).res, t);
      t.clock.advance(2000);
      // The phone's access token has expired meanwhile: a fresh login issues the new code.
      const login = await t.client.logIn(phone.authenticator);
      const fresh = await issueCode(t.client, { ...phone, key: login.key, tokens: login.body });
      await redeemOk(t.client, phone.username, fresh.code);
    });

    it('start shares the username\'s budget with redeem', async () => {
      const phone = await t.client.signUp(uniqueName('lim'));
      const { code } = await issueCode(t.client, phone);
      await redeem(t.client, phone.username, otherCode(code));
      assert.equal((await start(t.client, phone.username)).res.status, 201);
      assert.equal((await start(t.client, phone.username)).res.status, 201);
      expectLimited((await start(t.client, phone.username)).res, t);
      expectLimited((await redeem(t.client, phone.username, code)).res, t);
    });

    it('unknown usernames are limited too (start cannot enumerate accounts freely)', async () => {
      const name = uniqueName('ghost');
      for (let i = 0; i < 3; i++) expectProblem((await start(t.client, name)).res, 404, 'account_not_found');
      expectLimited((await start(t.client, name)).res, t);
      expectLimited((await redeem(t.client, name, '123456')).res, t);
    });

    it('spellings of one username share one budget: case and width variants are the same username', async () => {
      const phone = await t.client.signUp(uniqueName('wide'));
      const { code } = await issueCode(t.client, phone);
      expectProblem((await redeem(t.client, phone.username, otherCode(code, 1))).res, 422, 'join_code_invalid');
      expectProblem((await redeem(t.client, phone.username.toUpperCase(), otherCode(code, 2))).res, 422, 'join_code_invalid');
      const wide = fullwidth(phone.username);
      assert.notEqual(wide.toLowerCase(), phone.username.toLowerCase());
      expectProblem((await redeem(t.client, wide, otherCode(code, 3))).res, 422, 'join_code_invalid');
      // Three guesses for this username so far, whatever the spelling: the 4th is refused.
      expectLimited((await redeem(t.client, fullwidth(phone.username.toUpperCase()), otherCode(code, 4))).res, t);
    });
  });

  describe(`join limits: per client [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend, { JOIN_PER_USERNAME_PER_HOUR: '100000', JOIN_PER_CLIENT_PER_HOUR: '3' });
    });
    after(() => t.close());
    beforeEach(() => nextWindow(t));

    it('the 4th redeem or start from one client in an hour is 429 with Retry-After, whatever the username', async () => {
      const names = [uniqueName('a'), uniqueName('b'), uniqueName('c')];
      for (const name of names) expectProblem((await redeem(t.client, name, '000000')).res, 422, 'join_code_invalid');
      const phone = await t.client.signUp(uniqueName('d'));
      const { code } = await issueCode(t.client, phone);
      expectLimited((await redeem(t.client, phone.username, code)).res, t);
      expectLimited((await start(t.client, phone.username)).res, t);
      // Without TRUST_PROXY an X-Forwarded-For header does not make another client.
      expectLimited((await redeem(t.client, phone.username, code, { headers: { 'x-forwarded-for': '203.0.113.9' } })).res, t);
      const rows = await t.store.handle.db.selectFrom('join_codes').selectAll().where('account_id', '=', phone.accountId).execute();
      assert.equal(rows[0]!.used_at, null);
    });

    it('after Retry-After seconds the client may try again', async () => {
      for (let i = 0; i < 3; i++) await start(t.client, uniqueName('x'));
      const retryAfter = expectLimited((await start(t.client, uniqueName('x'))).res, t);
      t.clock.advance(retryAfter * 1000);
      const phone = await t.client.signUp(uniqueName('y'));
      const { code } = await issueCode(t.client, phone);
      await redeemOk(t.client, phone.username, code);
    });
  });

  describe(`join limits: per client behind a proxy [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend, { JOIN_PER_USERNAME_PER_HOUR: '100000', JOIN_PER_CLIENT_PER_HOUR: '3', TRUST_PROXY: 'true' });
    });
    after(() => t.close());
    beforeEach(() => nextWindow(t));

    it('clients are told apart by their forwarded address: one client\'s limit does not block another', async () => {
      const mallory = { 'x-forwarded-for': '203.0.113.7' };
      for (let i = 0; i < 3; i++) await redeem(t.client, uniqueName('m'), '000000', { headers: mallory });
      const phone = await t.client.signUp(uniqueName('p'));
      const { code } = await issueCode(t.client, phone);
      expectLimited((await redeem(t.client, phone.username, code, { headers: mallory })).res, t);
      await redeemOk(t.client, phone.username, code, { headers: { 'x-forwarded-for': '198.51.100.4' } });
    });
  });
}
