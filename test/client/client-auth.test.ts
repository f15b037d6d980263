// The TypeScript client (client/) against the real server: sign-up, login, DPoP proofs, token
// renewal (ahead of expiry, once on a 401), refresh rotation, typed problems, logout.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { clientFor, decodeJwt, signUp } from '../../client/test/harness.js';
import { isProblem, VidProblemError } from '../../client/src/index.js';
import type { StoredSession, VidStorage } from '../../client/src/index.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');

for (const backend of backends) {
  describe(`client: sign-up, proofs and renewal [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend);
    });
    after(async () => {
      await t.close();
    });

    it('signs up and reads /me; the session is bound to a non-extractable device key', async () => {
      const h = clientFor(t);
      const username = uniqueName('cl');
      const check = await h.client.usernames.check(username);
      assert.equal(check.available, true);
      const { account, tokens } = await signUp(h, username);
      assert.equal(account.username, username);
      assert.equal(tokens.token_type, 'DPoP');

      const me = await h.client.me.get();
      assert.equal(me.id, account.id);
      assert.equal((await h.client.session())?.sessionId, tokens.session_id);

      const key = (await h.storage.getKey())!;
      assert.equal(key.privateKey.extractable, false);
      const methods = await h.client.request('GET', '/auth/methods');
      assert.equal(methods.data[0]?.dpop_jkt, await h.client.jkt(), 'the passkey records the key the session is bound to');
    });

    it('signs a new proof for every request: htm, htu on the public origin, ath of the token, a unique jti', async () => {
      const h = clientFor(t);
      await signUp(h, uniqueName('cl'));
      await h.client.me.get();
      await h.client.me.get();
      await h.client.sessions.list().toArray();

      const authed = h.log.filter((e) => e.headers.has('authorization'));
      assert.equal(authed.length, 3);
      const jtis = new Set<string>();
      for (const exchange of h.log) {
        const proof = exchange.headers.get('dpop');
        if (!proof) continue;
        const { header, claims } = decodeJwt(proof);
        assert.equal(header.typ, 'dpop+jwt');
        assert.equal(header.alg, 'ES256');
        assert.deepEqual(Object.keys(header.jwk).sort(), ['crv', 'kty', 'x', 'y'], 'the public key only');
        assert.equal(claims.htm, exchange.method);
        assert.equal(claims.htu, `http://localhost:8080/api/v1${exchange.path.split('?')[0]}`);
        assert.equal(claims.iat, Math.floor(t.clock.now() / 1000));
        jtis.add(claims.jti);
        const authorization = exchange.headers.get('authorization');
        if (authorization) {
          assert.match(authorization, /^DPoP /);
          assert.equal(claims.ath, sha256(authorization.slice(5)));
        } else {
          assert.equal(claims.ath, undefined, 'no ath without a token');
        }
      }
      assert.equal(jtis.size, h.log.filter((e) => e.headers.has('dpop')).length, 'no jti twice');
      // Anonymous calls (check, begin) carry no proof at all.
      assert.equal(h.calls('POST', '/auth/register/begin')[0]?.headers.has('dpop'), false);
    });

    it('renews ahead of expiry: after 600 s the next call renews once, transparently', async () => {
      const h = clientFor(t);
      await signUp(h, uniqueName('cl'));
      const before = (await h.storage.getSession())!;
      t.clock.advance(601_000);
      const me = await h.client.me.get();
      assert.ok(me.id);
      assert.equal(h.calls('POST', '/auth/token/renew').length, 1);
      assert.deepEqual(h.calls('GET', '/me').map((e) => e.status), [200], 'no 401 on the way');
      const afterRenew = (await h.storage.getSession())!;
      assert.notEqual(afterRenew.accessToken, before.accessToken);
      assert.notEqual(afterRenew.refreshToken, before.refreshToken);
      assert.equal(afterRenew.sessionId, before.sessionId);
      const renewProof = decodeJwt(h.calls('POST', '/auth/token/renew')[0]!.headers.get('dpop')!);
      assert.equal(renewProof.claims.ath, undefined);
    });

    it('concurrent calls at expiry share one renewal (a refresh token is never spent twice)', async () => {
      const h = clientFor(t);
      await signUp(h, uniqueName('cl'));
      t.clock.advance(601_000);
      const results = await Promise.all([h.client.me.get(), h.client.me.get(), h.client.me.get(), h.client.sessions.list().toArray()]);
      assert.equal(results.length, 4);
      assert.equal(h.calls('POST', '/auth/token/renew').length, 1);
    });

    it('renews once on a 401 invalid_token and resends with a new proof', async () => {
      // A storage whose clock is wrong: it believes the token is fresh, the server knows better.
      const inner = clientFor(t).storage;
      const lying: VidStorage = {
        ...inner,
        getKey: () => inner.getKey(),
        setKey: (key) => inner.setKey(key),
        getSession: async () => {
          const session = await inner.getSession();
          return session && { ...session, renewAt: Number.MAX_SAFE_INTEGER };
        },
        setSession: (session?: StoredSession) => inner.setSession(session),
      };
      const h = clientFor(t, { storage: lying });
      await signUp(h, uniqueName('cl'));
      t.clock.advance(601_000);
      await h.client.me.get();
      const gets = h.calls('GET', '/me');
      assert.deepEqual(gets.map((e) => e.status), [401, 200]);
      assert.equal(h.calls('POST', '/auth/token/renew').length, 1);
      assert.notEqual(decodeJwt(gets[0]!.headers.get('dpop')!).claims.jti, decodeJwt(gets[1]!.headers.get('dpop')!).claims.jti);
      assert.notEqual(gets[0]!.headers.get('authorization'), gets[1]!.headers.get('authorization'));
    });

    it('rotates the refresh token on every renewal; a reused one ends the session and the client notices', async () => {
      const ended: unknown[] = [];
      const h = clientFor(t, { onSessionEnded: (reason) => ended.push(reason) });
      await signUp(h, uniqueName('cl'));
      const first = (await h.storage.getSession())!.refreshToken;
      await h.client.renew();
      const second = (await h.storage.getSession())!.refreshToken;
      await h.client.renew();
      assert.notEqual(first, second);
      assert.notEqual(second, (await h.storage.getSession())!.refreshToken);

      // Someone holding the key replays an old refresh token: the server revokes the session.
      const replay = await h.client.request('POST', '/auth/token/renew', { auth: 'proof', body: { refresh_token: first } }).catch((e: unknown) => e);
      assert.ok(isProblem(replay, 'refresh_token_reused'), String(replay));

      const error = await h.client.me.get().catch((e: unknown) => e);
      assert.ok(error instanceof VidProblemError);
      assert.equal(error.status, 401);
      assert.equal(await h.client.session(), undefined, 'the client forgot the dead session');
      assert.equal(ended.length, 1);
      assert.ok(ended[0] instanceof VidProblemError);
    });

    it('a device clock two minutes fast is aligned on the server Date after one refused proof', async () => {
      t.clock.set(Date.now()); // the server's clock, which its Date header shows, is real time here
      const h = clientFor(t, { now: () => t.clock.now() + 120_000 });
      await signUp(h, uniqueName('skew'));
      const finishes = h.calls('POST', '/auth/register/finish');
      assert.deepEqual(finishes.map((e) => e.status), [401, 201], 'iat in the future, then aligned');
      await h.client.me.get();
      assert.deepEqual(h.calls('GET', '/me').map((e) => e.status), [200], 'no further refusal');
    });

    it('a name taken meanwhile surfaces as a typed 409 username_taken problem', async () => {
      const username = uniqueName('race');
      const winner = clientFor(t);
      const loser = clientFor(t);
      // The loser's authenticator is slow: the winner signs up between its begin and its finish.
      const error = await loser.client
        .register({
          username,
          createCredential: async (options) => {
            await signUp(winner, username);
            return loser.createCredential(options);
          },
        })
        .catch((e: unknown) => e);
      assert.ok(error instanceof VidProblemError, String(error));
      assert.equal(error.status, 409);
      assert.equal(error.code, 'username_taken');
      assert.equal(error.type, 'urn:vid:problem:username_taken');
      assert.ok(error.title && error.detail);
      assert.equal(error.requestId, error.headers.get('vid-request-id'));
      assert.equal(await loser.client.session(), undefined);
      assert.ok(await winner.client.session());

      const again = await loser.client.register({ username, createCredential: loser.createCredential }).catch((e: unknown) => e);
      assert.ok(isProblem(again) && again.status === 409, 'refused already at begin');
    });

    it('logs in on a returning device with a fresh key, lists both sessions and logs out', async () => {
      const first = clientFor(t);
      await signUp(first, uniqueName('cl'));
      t.clock.advance(1_000); // the log orders by time: the sign-in a second after the sign-up
      const second = clientFor(t, { authenticator: first.authenticator });
      const tokens = await second.client.login({ getAssertion: second.getAssertion });
      assert.equal(tokens.trusted, true);
      assert.notEqual(await second.client.jkt(), await first.client.jkt());

      const sessions = await second.client.sessions.list().toArray();
      assert.equal(sessions.length, 2);
      assert.equal(sessions.filter((s) => s.current).length, 1);
      assert.equal(sessions.find((s) => s.current)?.id, tokens.session_id);
      // The security log, a page of one at a time, newest first: the sign-in, then the sign-up.
      const pages = [];
      for await (const page of second.client.securityLog.list({ limit: 1 }).pages()) pages.push(page.data.map((e) => e.kind));
      assert.deepEqual(pages, [['signed_in'], ['account_created']]);

      await second.client.logout();
      assert.equal(await second.client.session(), undefined);
      assert.equal(await second.storage.getKey(), undefined);
      const left = await first.client.sessions.list().toArray();
      assert.deepEqual(left.map((s) => s.current), [true], 'the server revoked the other session');
      const signedOut = await second.client.me.get().catch((e: unknown) => e);
      assert.ok(isProblem(signedOut, 'unauthenticated'));
    });
  });
}
