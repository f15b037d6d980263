// Account locks (decision 090): an operator's lock revokes every session at once and refuses the
// account everything (403 account_locked), hides it from everyone else as unavailable, and is
// written to its security log; unlocking lets it sign in again. Both backends, real HTTP.
import { randomUUID } from 'node:crypto';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../../src/platform/errors.js';
import { backends } from '../helpers/backends.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import type { Device } from '../helpers/client.js';
import { SoftwareAuthenticator } from '../helpers/authenticator.js';
import { recoveryKey } from '../helpers/join.js';
import { API, social } from '../helpers/social.js';
import { logInAs } from '../helpers/step-up.js';
import { expectProblem } from '../helpers/problem.js';

const RENEW = `${API}/auth/token/renew`;

async function refusedWith(promise: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => error instanceof AppError && error.code === code);
}

for (const backend of backends) {
  describe(`account locks [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    let s: ReturnType<typeof social>;
    before(async () => {
      t = await startTestApp(backend, { RECOVERY_PER_CLIENT_PER_HOUR: '1000', RECOVERY_KEY_HOLDER_PER_HOUR: '1000' });
      s = social(t);
    });
    after(() => t.close());

    /** Alice with a public profile, a second device, Bob active on her card, Carol pending, a share link. */
    async function world() {
      const alice = await s.person('alice');
      const laptop = await logInAs(t.client, alice);
      const bob = await s.person('bob');
      const carol = await s.person('carol');
      const phone = await s.field(alice, { type: 'phone', value: '+49 30 22732152' });
      const work = await s.profile(alice, 'Work', true);
      await s.expose(alice, work.id, phone.id);
      const contactId = await s.connect(bob, alice, work.id);
      const carolRequest = (await s.subscribe(carol, alice)).body;
      const link = (await s.post(alice, '/share-links', { profile_id: work.id, auto_approve: true })).body;
      return { alice, laptop, bob, carol, contactId, carolRequest, link };
    }

    const loginFinish = async (device: Device) => {
      const begin = await t.client.call('POST', `${API}/auth/login/begin`);
      const credential = await device.authenticator.getAssertion(begin.body.options, t.client.publicOrigin);
      return t.client.call('POST', `${API}/auth/login/finish`, { body: { ceremony_id: begin.body.ceremony_id, credential }, key: await t.client.newKey(), headers: { 'idempotency-key': randomUUID() } });
    };

    it('refuses the locked account everything with 403 account_locked, at once, on every session', async () => {
      const { alice, laptop } = await world();
      const key = await recoveryKey(t.client, alice);
      const { sessions_revoked } = await t.services.locks.lock(alice.username, 'spam reports #4411');
      assert.equal(sessions_revoked, 2);

      // Both devices: every route, even those a deleted account keeps, and the event poll.
      for (const device of [alice, laptop]) {
        for (const [method, path] of [['GET', '/me'], ['GET', '/me/fields'], ['GET', '/contacts'], ['GET', '/events'], ['POST', '/auth/logout']] as const) {
          expectProblem(await t.client.as(device, method, `${API}${path}`), 403, 'account_locked');
        }
        expectProblem(await t.client.call('POST', RENEW, { body: { refresh_token: device.tokens.refresh_token }, key: device.key }), 403, 'account_locked');
      }
      // The token alone, with another key, learns nothing: the usual 401.
      assert.equal((await t.client.call('GET', `${API}/me`, { key: await t.client.newKey(), token: alice.tokens.access_token })).status, 401);

      // No new way in: passkey login, recovery (after the key checks out), nothing is left behind.
      expectProblem(await loginFinish(alice), 403, 'account_locked');
      const begin = await t.client.call('POST', `${API}/auth/recovery/begin`, { body: { username: alice.username, recovery_key: key } });
      assert.equal(begin.status, 200, JSON.stringify(begin.body));
      const newAuthenticator = new SoftwareAuthenticator();
      const credential = await newAuthenticator.createCredential(begin.body.options, t.client.publicOrigin);
      expectProblem(await t.client.call('POST', `${API}/auth/recovery/finish`, { body: { ceremony_id: begin.body.ceremony_id, credential }, key: await t.client.newKey(), headers: { 'idempotency-key': randomUUID() } }), 403, 'account_locked');
      const report = await t.services.locks.show(alice.username);
      assert.equal(report.passkeys.length, 1, 'the refused recovery added no passkey');
      assert.equal(report.sessions.length, 0, 'the refused logins opened no session');
    });

    it('hides the locked account from everyone else: public card, share link, contacts, new requests', async () => {
      const w = await world();
      const bobSignalsBefore = (await s.signals(w.bob)).length;
      await t.services.locks.lock(w.alice.username, 'compromised');

      expectProblem(await t.client.call('GET', `${API}/public/${w.alice.username}`), 404, 'profile_not_found');
      expectProblem(await t.client.call('GET', `${API}/share-links/resolve?token=${w.link.token}`), 410, 'share_link_gone');
      const dave = await s.person('dave');
      expectProblem(await s.post(dave, '/share-links/redeem', { token: w.link.token }), 410, 'share_link_gone');
      expectProblem(await s.subscribe(dave, w.alice), 404, 'account_not_found');

      const bobsView = await s.get(w.bob, `/contacts/${w.contactId}`);
      assert.equal(bobsView.body.status, 'unavailable');
      assert.equal(bobsView.body.card_updated_at, null);
      expectProblem(await s.get(w.bob, `/contacts/${w.contactId}/card`), 410, 'account_unavailable');
      expectProblem(await s.get(w.bob, `/contacts/${w.contactId}/vcard`), 410, 'account_unavailable');
      expectProblem(await s.get(w.bob, `/contacts/${w.contactId}/keys`), 410, 'account_unavailable');
      assert.ok(!String((await t.client.as(w.bob, 'GET', `${API}/contacts/vcard`)).body ?? '').includes('BEGIN:VCARD'), 'a locked owner\'s card in the address-book file');
      assert.equal((await s.get(w.carol, `/contacts/${w.carolRequest.id}`)).body.status, 'unavailable');
      assert.deepEqual((await s.signals(w.bob)).slice(bobSignalsBefore), [['contacts.changed', '/contacts']]);
      // Nothing says why: the reason is the operator's.
      assert.ok(!JSON.stringify(bobsView.body).includes('compromised'));
    });

    it('unlock: sign-in works again, old sessions stay revoked, everything is back, the log has both', async () => {
      const w = await world();
      const cardBefore = await s.get(w.bob, `/contacts/${w.contactId}/card`);
      t.clock.advance(1000);
      await t.services.locks.lock(w.alice.username, 'investigating');
      t.clock.advance(1000);
      const bobSignalsBefore = (await s.signals(w.bob)).length;
      await t.services.locks.unlock(w.alice.username);
      t.clock.advance(1000);

      assert.equal((await t.client.as(w.alice, 'GET', `${API}/me`)).status, 401, 'a session the lock revoked stays revoked');
      const again = await logInAs(t.client, w.alice);
      assert.equal((await s.get(again, '/me')).status, 200);
      assert.equal((await t.client.call('GET', `${API}/public/${w.alice.username}`)).status, 200);
      assert.equal((await t.client.call('GET', `${API}/share-links/resolve?token=${w.link.token}`)).status, 200);
      assert.deepEqual((await s.get(w.bob, `/contacts/${w.contactId}/card`)).body, cardBefore.body);
      assert.deepEqual((await s.signals(w.bob)).slice(bobSignalsBefore), [['contacts.changed', '/contacts']]);

      const log = (await s.get(again, '/auth/security-log?limit=10')).body.data as Array<{ kind: string; user_agent: string; ip: string }>;
      const kinds = log.map((e) => e.kind);
      assert.deepEqual(kinds.slice(0, 3), ['signed_in', 'account_unlocked', 'account_locked']);
      assert.equal(log[2]!.ip, '');
      assert.match(log[2]!.user_agent, /operator/);
      // Both ended the account's other sessions' streams and told its devices.
      assert.ok((await s.ownSignals(w.alice)).some(([kind]) => kind === 'account.changed'));
    });

    it('show reports status, live sessions and methods, and no secret', async () => {
      const { alice } = await world();
      const report = await t.services.locks.show(alice.username);
      assert.equal(report.status, 'active');
      assert.equal(report.sessions.length, 2);
      assert.equal(report.passkeys.length, 1);
      assert.deepEqual(report.totp, []);
      const text = JSON.stringify(report);
      for (const secret of [alice.tokens.access_token, alice.tokens.refresh_token]) assert.ok(!text.includes(secret));
      assert.ok(!/public_key|access_hash|secret|"jkt"|counter/i.test(text), `a secret-looking member in the report: ${text}`);
      await t.services.locks.lock(alice.username, 'fraud');
      const locked = await t.services.locks.show(alice.username);
      assert.equal(locked.status, 'locked');
      assert.equal(locked.lock_reason, 'fraud');
      assert.equal(locked.sessions.length, 0);
    });

    // PostgreSQL runs a login and a lock in parallel transactions; SQLite writes one at a time.
    if (backend.name === 'postgres') {
      it('a login racing the lock waits for it and is refused: no session outlives the lock', async () => {
        const alice = await s.person('alice');
        const begin = await t.client.call('POST', `${API}/auth/login/begin`);
        const credential = await alice.authenticator.getAssertion(begin.body.options, t.client.publicOrigin);
        // The lock's transaction, held open between its statements (as lock() runs them).
        const lock = await t.store.handle.pool!.connect();
        try {
          await lock.query('begin');
          await lock.query('update accounts set locked_at = $1, lock_reason = $2, version = version + 1 where id = $3', [Date.now(), 'race', alice.accountId]);
          const finish = t.client.call('POST', `${API}/auth/login/finish`, { body: { ceremony_id: begin.body.ceremony_id, credential }, key: await t.client.newKey(), headers: { 'idempotency-key': randomUUID() } });
          const meanwhile = await Promise.race([finish.then(() => 'answered'), new Promise((resolve) => setTimeout(resolve, 400, 'waiting'))]);
          await lock.query('update sessions set revoked_at = $1 where account_id = $2 and revoked_at is null', [Date.now(), alice.accountId]);
          await lock.query('commit');
          assert.equal(meanwhile, 'waiting', 'the login must wait for the lock being written, not open a session beside it');
          expectProblem(await finish, 403, 'account_locked');
        } finally {
          lock.release();
        }
        assert.equal((await t.services.locks.show(alice.username)).sessions.length, 0);
      });
    }

    it('refuses what makes no sense with stable codes', async () => {
      const { alice } = await world();
      await refusedWith(t.services.locks.lock('nobody-has-this-name', 'x'), 'account_not_found');
      await refusedWith(t.services.locks.lock(alice.username, '   '), 'validation_failed');
      await refusedWith(t.services.locks.unlock(alice.username), 'account_not_locked');
      await t.services.locks.lock(alice.username, 'once');
      await refusedWith(t.services.locks.lock(alice.username, 'twice'), 'account_locked');
      assert.equal((await t.services.locks.show(alice.username)).lock_reason, 'once');
    });
  });
}
