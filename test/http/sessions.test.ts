// Sessions (PRODUCT §1 "Sessions", token/renew, logout, /auth/sessions; STANDARDS "DPoP": refresh
// tokens bound to the device key; RFC 9700 §4.14.2 refresh-token rotation and reuse detection).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { SoftwareAuthenticator } from '../helpers/authenticator.js';
import { uniqueName } from '../helpers/client.js';
import type { CallResult, Device, Tokens } from '../helpers/client.js';
import type { DpopKey } from '../helpers/dpop.js';
import { expectProblem } from '../helpers/problem.js';
import { logInAs, signUpWith as signUpWithHeaders } from '../helpers/step-up.js';

const RENEW = '/api/v1/auth/token/renew';
const SESSIONS = '/api/v1/auth/sessions';
const ME = '/api/v1/me';

const CHROME_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const FIREFOX_UA = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';

const DAY_MS = 24 * 3600 * 1000;

for (const backend of backends) {
  describe(`sessions: token renewal, logout and the session list [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend);
    });
    after(() => t.close());

    const renew = (key: DpopKey, refreshToken: string, options: { noProof?: boolean } = {}) =>
      t.client.call('POST', RENEW, { body: { refresh_token: refreshToken }, key: options.noProof ? undefined : key });
    const me = (key: DpopKey, token: string) => t.client.call('GET', ME, { key, token });
    const sessionRow = (id: string) => t.store.handle.db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

    function expectInvalidToken(res: CallResult, why: string): void {
      expectProblem(res, 401, 'invalid_token', why);
      assert.match(res.headers.get('www-authenticate') ?? '', /^DPoP .*error="invalid_token"/, why);
    }

    /** Sign-up like TestClient.signUp, with request headers (User-Agent) on register/finish. */
    async function signUpWith(headers: Record<string, string>): Promise<Device> {
      const username = uniqueName('ses');
      const key = await t.client.newKey();
      const authenticator = new SoftwareAuthenticator();
      const begin = await t.client.call('POST', '/api/v1/auth/register/begin', { body: { username } });
      assert.equal(begin.status, 200, JSON.stringify(begin.body));
      const credential = await authenticator.createCredential(begin.body.options, t.client.publicOrigin);
      const finish = await t.client.call('POST', '/api/v1/auth/register/finish', {
        body: { ceremony_id: begin.body.ceremony_id, username, credential },
        key,
        headers,
      });
      assert.equal(finish.status, 201, JSON.stringify(finish.body));
      return { username, key, authenticator, tokens: finish.body.tokens, accountId: finish.body.account.id };
    }

    /** A second device of the same person: a passkey login with its own key and User-Agent. */
    async function logInWith(device: Device, headers: Record<string, string>): Promise<Device> {
      const key = await t.client.newKey();
      const begin = await t.client.call('POST', '/api/v1/auth/login/begin');
      const credential = await device.authenticator.getAssertion(begin.body.options, t.client.publicOrigin);
      const finish = await t.client.call('POST', '/api/v1/auth/login/finish', {
        body: { ceremony_id: begin.body.ceremony_id, credential },
        key,
        headers,
      });
      assert.equal(finish.status, 200, JSON.stringify(finish.body));
      return { ...device, key, tokens: finish.body as Tokens };
    }

    describe('POST /auth/token/renew', () => {
      it('rotates both tokens; the old access token stops working, the new one works', async () => {
        const device = await t.client.signUp(uniqueName('rot'));
        const old = device.tokens;
        const res = await renew(device.key, old.refresh_token);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.headers.get('cache-control'), 'no-store');
        assert.equal(res.body.session_id, old.session_id);
        assert.equal(res.body.token_type, 'DPoP');
        assert.equal(res.body.expires_in, 600);
        assert.notEqual(res.body.access_token, old.access_token);
        assert.notEqual(res.body.refresh_token, old.refresh_token);
        expectInvalidToken(await me(device.key, old.access_token), 'old access token');
        assert.equal((await me(device.key, res.body.access_token)).status, 200);
      });

      it('reusing a rotated refresh token is 401 refresh_token_reused and revokes the whole session', async () => {
        const device = await t.client.signUp(uniqueName('reuse'));
        const first = device.tokens.refresh_token;
        const rotated = await renew(device.key, first);
        assert.equal(rotated.status, 200);
        const newest = rotated.body;
        assert.equal((await me(device.key, newest.access_token)).status, 200);

        const reused = await renew(device.key, first);
        assert.equal(reused.status, 401, JSON.stringify(reused.body));
        assert.equal(reused.body.code, 'refresh_token_reused');

        // The revocation committed: the newest access token and the newest refresh token fail too.
        expectInvalidToken(await me(device.key, newest.access_token), 'newest access token after reuse');
        const later = await renew(device.key, newest.refresh_token);
        assert.equal(later.status, 401, JSON.stringify(later.body));
        assert.notEqual((await sessionRow(device.tokens.session_id)).revoked_at, null);
      });

      it('two simultaneous renewals with one refresh token: one 200, one 401 refresh_token_reused, never two pairs', async () => {
        const device = await t.client.signUp(uniqueName('twice'));
        const results = await Promise.all([renew(device.key, device.tokens.refresh_token), renew(device.key, device.tokens.refresh_token)]);
        assert.deepEqual(results.map((r) => r.status).sort((x, y) => x - y), [200, 401], JSON.stringify(results.map((r) => r.body)));
        const winner = results.find((r) => r.status === 200) as CallResult;
        const loser = results.find((r) => r.status === 401) as CallResult;
        assert.equal(loser.body.code, 'refresh_token_reused');
        // The reuse revoked the session, the winner's fresh pair included.
        expectInvalidToken(await me(device.key, winner.body.access_token), 'winner access token after a reuse');
        assert.notEqual((await sessionRow(device.tokens.session_id)).revoked_at, null);
      });

      it('renewing with a proof by another key is 401 invalid_token and does not burn the refresh token', async () => {
        const device = await t.client.signUp(uniqueName('thief'));
        const thiefKey = await t.client.newKey();
        expectInvalidToken(await renew(thiefKey, device.tokens.refresh_token), 'proof by another key');
        // RFC 9449 §5: a refresh token is bound to the key; a stolen one without the key is useless,
        // and must not let the thief spend the owner's token (which would later read as "reused"
        // and revoke the owner's session).
        const owner = await renew(device.key, device.tokens.refresh_token);
        assert.equal(owner.status, 200, JSON.stringify(owner.body));
      });

      it('renewing without a DPoP proof is 401 invalid_dpop_proof and leaves the refresh token usable', async () => {
        const device = await t.client.signUp(uniqueName('noproof'));
        const res = await renew(device.key, device.tokens.refresh_token, { noProof: true });
        assert.equal(res.status, 401);
        assert.equal(res.body.code, 'invalid_dpop_proof');
        assert.equal((await renew(device.key, device.tokens.refresh_token)).status, 200);
      });

      it('an unknown refresh token is 401 invalid_token; a malformed body is 400 validation_failed', async () => {
        const key = await t.client.newKey();
        expectInvalidToken(await renew(key, 'vid_rt_doesnotexist'), 'unknown refresh token');
        const empty = await t.client.call('POST', RENEW, { body: {}, key });
        assert.equal(empty.status, 400);
        assert.equal(empty.body.code, 'validation_failed');
      });

      it('an expired access token is 401 invalid_token; renewing then restores access', async () => {
        const device = await t.client.signUp(uniqueName('expire'));
        t.clock.advance(599_000);
        assert.equal((await me(device.key, device.tokens.access_token)).status, 200);
        t.clock.advance(2_000);
        expectInvalidToken(await me(device.key, device.tokens.access_token), 'access token after 601 s');
        const res = await renew(device.key, device.tokens.refresh_token);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal((await me(device.key, res.body.access_token)).status, 200);
      });

      it('a refresh token unused past its 30-day lifetime is 401 invalid_token', async () => {
        const device = await t.client.signUp(uniqueName('idle'));
        assert.equal(device.tokens.expires_in, 600);
        t.clock.advance(30 * DAY_MS + 1_000);
        expectInvalidToken(await renew(device.key, device.tokens.refresh_token), 'refresh token after 30 days');
        // The expired session is no longer listed to the account's other sessions.
        const fresh = await logInWith(device, {});
        const list = await t.client.as(fresh, 'GET', SESSIONS);
        assert.deepEqual((list.body.data as { id: string }[]).map((s) => s.id), [fresh.tokens.session_id]);
      });

      it('renewals cannot outlive the 90-day absolute cap of a trusted session', async () => {
        const device = await t.client.signUp(uniqueName('cap'));
        let refresh = device.tokens.refresh_token;
        for (let i = 1; i <= 3; i++) {
          t.clock.advance(29 * DAY_MS);
          const res = await renew(device.key, refresh);
          assert.equal(res.status, 200, `renewal ${i}: ${JSON.stringify(res.body)}`);
          refresh = res.body.refresh_token;
          if (i === 3) {
            // Day 87: the refresh token lives only until the session's cap, 3 days away.
            assert.equal(res.body.refresh_expires_in, 3 * 24 * 3600);
          }
        }
        t.clock.advance(3 * DAY_MS + 1_000);
        expectInvalidToken(await renew(device.key, refresh), 'renewal past the absolute cap');
      });
    });

    describe('POST /auth/logout', () => {
      it('is 204 and revokes the current session: its access and refresh tokens stop working', async () => {
        const device = await t.client.signUp(uniqueName('bye'));
        const res = await t.client.as(device, 'POST', '/api/v1/auth/logout');
        assert.equal(res.status, 204);
        assert.equal(res.body, null);
        expectInvalidToken(await me(device.key, device.tokens.access_token), 'access token after logout');
        expectInvalidToken(await renew(device.key, device.tokens.refresh_token), 'refresh token after logout');
        assert.notEqual((await sessionRow(device.tokens.session_id)).revoked_at, null);
      });

      it('leaves the account\'s other sessions alone', async () => {
        const first = await t.client.signUp(uniqueName('multi'));
        const second = await logInWith(first, {});
        assert.equal((await t.client.as(first, 'POST', '/api/v1/auth/logout')).status, 204);
        assert.equal((await t.client.as(second, 'GET', ME)).status, 200);
      });

      it('without a token is 401', async () => {
        const res = await t.client.call('POST', '/api/v1/auth/logout', { key: await t.client.newKey() });
        assert.equal(res.status, 401);
      });
    });

    describe('GET and DELETE /auth/sessions', () => {
      it('lists the live sessions with a device label from the User-Agent and current only for the caller', async () => {
        const laptop = await signUpWith({ 'user-agent': CHROME_UA });
        const phone = await logInWith(laptop, { 'user-agent': FIREFOX_UA });
        const res = await t.client.as(laptop, 'GET', SESSIONS);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.has_more, false);
        assert.equal(res.body.next_cursor, null);
        assert.equal(res.body.data.length, 2);
        const byId = new Map((res.body.data as { id: string }[]).map((s) => [s.id, s as Record<string, unknown>]));
        const mine = byId.get(laptop.tokens.session_id);
        const theirs = byId.get(phone.tokens.session_id);
        assert.ok(mine && theirs, JSON.stringify(res.body.data));
        assert.equal(mine.current, true);
        assert.equal(theirs.current, false);
        assert.equal(mine.device_label, 'Chrome on Windows');
        assert.equal(theirs.device_label, 'Firefox on Linux');
        assert.equal(mine.place, null, 'loopback has no place');
        assert.equal(mine.user_agent, CHROME_UA);
        assert.equal(theirs.user_agent, FIREFOX_UA);
        assert.equal(mine.trusted, true);

        // From the other device, "current" moves with the caller.
        const fromPhone = await t.client.as(phone, 'GET', SESSIONS);
        const current = (fromPhone.body.data as { id: string; current: boolean }[]).filter((s) => s.current).map((s) => s.id);
        assert.deepEqual(current, [phone.tokens.session_id]);
      });

      it('pages with limit and cursor', async () => {
        const first = await t.client.signUp(uniqueName('pages'));
        const second = await logInWith(first, {});
        const page1 = await t.client.as(first, 'GET', `${SESSIONS}?limit=1`);
        assert.equal(page1.status, 200);
        assert.equal(page1.body.data.length, 1);
        assert.equal(page1.body.has_more, true);
        const page2 = await t.client.as(first, 'GET', `${SESSIONS}?limit=1&cursor=${encodeURIComponent(page1.body.next_cursor)}`);
        assert.equal(page2.status, 200);
        assert.equal(page2.body.data.length, 1);
        assert.equal(page2.body.has_more, false);
        const ids = [page1.body.data[0].id, page2.body.data[0].id].sort();
        assert.deepEqual(ids, [first.tokens.session_id, second.tokens.session_id].sort());
      });

      it('does not list another account\'s sessions, nor revoked ones', async () => {
        const alone = await t.client.signUp(uniqueName('alone'));
        const other = await t.client.signUp(uniqueName('other'));
        const gone = await logInWith(alone, {});
        assert.equal((await t.client.as(gone, 'POST', '/api/v1/auth/logout')).status, 204);
        const res = await t.client.as(alone, 'GET', SESSIONS);
        const ids = (res.body.data as { id: string }[]).map((s) => s.id);
        assert.deepEqual(ids, [alone.tokens.session_id]);
        assert.ok(!ids.includes(other.tokens.session_id));
      });

      it('DELETE of one of your other sessions is 204; its access and refresh tokens then fail', async () => {
        const laptop = await t.client.signUp(uniqueName('revoker'));
        const phone = await logInWith(laptop, {});
        const res = await t.client.as(laptop, 'DELETE', `${SESSIONS}/${phone.tokens.session_id}`);
        assert.equal(res.status, 204);
        expectInvalidToken(await t.client.as(phone, 'GET', ME), 'revoked session access token');
        expectInvalidToken(await renew(phone.key, phone.tokens.refresh_token), 'revoked session refresh token');
        assert.equal((await t.client.as(laptop, 'GET', ME)).status, 200, 'the caller keeps its session');
        const list = await t.client.as(laptop, 'GET', SESSIONS);
        assert.deepEqual((list.body.data as { id: string }[]).map((s) => s.id), [laptop.tokens.session_id]);
        // Revoking it again: it is no longer a live session of yours.
        const again = await t.client.as(laptop, 'DELETE', `${SESSIONS}/${phone.tokens.session_id}`);
        assert.equal(again.status, 404);
        assert.equal(again.body.code, 'session_not_found');
      });

      it("DELETE of another account's session is 404 session_not_found and leaves it working", async () => {
        const mallory = await t.client.signUp(uniqueName('mallory'));
        const victim = await t.client.signUp(uniqueName('victim'));
        const res = await t.client.as(mallory, 'DELETE', `${SESSIONS}/${victim.tokens.session_id}`);
        assert.equal(res.status, 404);
        assert.equal(res.body.code, 'session_not_found');
        assert.equal((await t.client.as(victim, 'GET', ME)).status, 200);
        assert.equal((await sessionRow(victim.tokens.session_id)).revoked_at, null);
      });

      it('DELETE of an unknown id is 404 session_not_found', async () => {
        const device = await t.client.signUp(uniqueName('unknown'));
        const res = await t.client.as(device, 'DELETE', `${SESSIONS}/ses_doesnotexist`);
        assert.equal(res.status, 404);
        assert.equal(res.body.code, 'session_not_found');
      });

      it('DELETE of your own current session is 204 and logs you out', async () => {
        const device = await t.client.signUp(uniqueName('self'));
        const res = await t.client.as(device, 'DELETE', `${SESSIONS}/${device.tokens.session_id}`);
        assert.equal(res.status, 204);
        expectInvalidToken(await t.client.as(device, 'GET', ME), 'after revoking the current session');
      });

      it('without a token is 401', async () => {
        const res = await t.client.call('GET', SESSIONS, { key: await t.client.newKey() });
        assert.equal(res.status, 401);
      });
    });
  });

  describe(`sessions: device labels and places, behind a proxy [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend, { TRUST_PROXY: '1' });
    });
    after(() => t.close());
    const sessionRow = (id: string) => t.store.handle.db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const signUpWith = (headers: Record<string, string>) => signUpWithHeaders(t.client, uniqueName('where'), { headers });
    const logInWith = (device: Device, headers: Record<string, string>) => logInAs(t.client, device, { headers });

    it('says where each session is in words: "Safari on iPhone", Belfast GB; never the user-agent string in a label', async () => {
      const iphone = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
      const android = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';
      const phone = await signUpWith({ 'user-agent': iphone, 'x-forwarded-for': '2.125.160.216' });
      const other = await logInWith(phone, { 'user-agent': android, 'x-forwarded-for': '10.1.2.3' });
      const odd = await logInWith(phone, { 'user-agent': 'Mozilla/5.0 (compatible; Something/1.0)' });
      const tool = await logInWith(phone, { 'user-agent': 'curl/8.4.0' });
      const listed = new Map(((await t.client.as(phone, 'GET', SESSIONS)).body.data as Array<Record<string, any>>).map((s) => [s.id, s]));
      const of = (device: Device) => listed.get(device.tokens.session_id)!;
      assert.equal(of(phone).device_label, 'Safari on iPhone');
      assert.deepEqual(of(phone).place, { city: 'Belfast', country: 'GB' });
      assert.equal(of(other).device_label, 'Chrome on Android phone');
      assert.equal(of(other).place, null, 'a private address has no place');
      assert.equal(of(odd).device_label, 'Unknown device');
      assert.equal(of(tool).device_label, 'curl', 'a program that is no browser, by its product name');
      for (const session of listed.values()) {
        assert.ok(!String(session.device_label).includes('Mozilla') && !String(session.device_label).includes('/'), session.device_label);
        assert.equal(typeof session.user_agent, 'string', 'the raw header stays beside the label (PRODUCT §1)');
      }
      // The label is read from the user agent each time: sessions opened before a better
      // reading (an older label stored with them) get the new one too.
      await t.store.handle.db.updateTable('sessions').set({ device_label: 'Safari 17 on iOS' }).where('id', '=', phone.tokens.session_id).execute();
      const again = (await t.client.as(phone, 'GET', SESSIONS)).body.data.find((s: { id: string }) => s.id === phone.tokens.session_id);
      assert.equal(again.device_label, 'Safari on iPhone');
      assert.deepEqual(
        { location: (await sessionRow(phone.tokens.session_id)).location, passkey: (await sessionRow(phone.tokens.session_id)).passkey_id !== null },
        { location: 'Belfast, GB', passkey: true },
      );
    });
  });
}
