// The client and the API conventions (PRODUCT §0) against the real server: Idempotency-Key reuse
// across retries, Retry-After, network retries, If-Match tracking, cursor pagination, step-up.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientFor, decodeJwt, signUp, syntheticProblem } from '../../client/test/harness.js';
import { isProblem, VidNetworkError, VidProblemError } from '../../client/src/index.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';

for (const backend of backends) {
  describe(`client: conventions [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend);
    });
    after(async () => {
      await t.close();
    });

    it('reuses one Idempotency-Key across the retries of a call (synthetic 503, Retry-After: 0)', async () => {
      const h = clientFor(t);
      await signUp(h, uniqueName('ik'));
      await h.client.me.get();
      h.intercept((request, _forward, attempt) =>
        request.method === 'PATCH' && attempt === 1 ? syntheticProblem(503, 'overloaded', { 'retry-after': '0' }) : undefined,
      );
      const me = await h.client.me.patch({ display_name: 'Once' });
      assert.equal(me.display_name, 'Once');
      const patches = h.calls('PATCH', '/me');
      assert.deepEqual(patches.map((e) => e.status), [503, 200]);
      const key = patches[0]!.headers.get('idempotency-key');
      assert.match(key ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.equal(patches[1]!.headers.get('idempotency-key'), key);
      assert.notEqual(decodeJwt(patches[0]!.headers.get('dpop')!).claims.jti, decodeJwt(patches[1]!.headers.get('dpop')!).claims.jti, 'never the same proof twice');
      assert.deepEqual(h.sleeps, [0]);

      // The next logical call gets its own key.
      h.intercept(undefined);
      await h.client.me.patch({ display_name: 'Twice' });
      assert.notEqual(h.calls('PATCH', '/me')[2]!.headers.get('idempotency-key'), key);
    });

    it('a retry after a lost answer is replayed by the server: the change happens once', async () => {
      const h = clientFor(t);
      await signUp(h, uniqueName('ik'));
      const before = await h.client.me.get();
      // The first attempt reaches the server and is processed; its answer is lost on the way back.
      h.intercept(async (request, forward, attempt) => {
        if (request.method !== 'PATCH' || attempt !== 1) return undefined;
        await (await forward()).text();
        return syntheticProblem(503, 'bad_gateway', { 'retry-after': '0' });
      });
      const me = await h.client.me.patch({ display_name: 'Exactly once' });
      assert.equal(me.version, before.version + 1, 'one change, not two (and no 412 on the retry)');
      h.intercept(undefined);
      assert.equal((await h.client.me.get()).version, before.version + 1);
    });

    it('honours Retry-After on 429 with a bounded number of retries, then throws the problem', async () => {
      const h = clientFor(t, { retry: { maxRetries: 2 } });
      await signUp(h, uniqueName('ra'));
      h.intercept((request) => (request.path === '/me' ? syntheticProblem(429, 'rate_limited', { 'retry-after': '3' }) : undefined));
      const error = await h.client.me.get().catch((e: unknown) => e);
      assert.ok(isProblem(error, 'rate_limited'));
      assert.equal(error.headers.get('retry-after'), '3');
      assert.equal(h.calls('GET', '/me').length, 3);
      assert.deepEqual(h.sleeps, [3000, 3000]);

      // A wait longer than the client accepts is not waited for at all.
      h.sleeps.length = 0;
      h.intercept((request) => (request.path === '/me' ? syntheticProblem(503, 'overloaded', { 'retry-after': '3600' }) : undefined));
      assert.ok(isProblem(await h.client.me.get().catch((e: unknown) => e), 'overloaded'));
      assert.deepEqual(h.sleeps, []);
    });

    it('tells onRetry each wait and its cause before it sleeps; a call sets its own cap, and false gives up', async () => {
      const told: string[] = [];
      const h = clientFor(t, { onRetry: (wait, problem) => void told.push(`client ${wait.ms} ${wait.attempt}/${wait.of} ${isProblem(problem) ? problem.code : problem.name}`) });
      await signUp(h, uniqueName('or'));
      let refusals = 2;
      h.intercept((request) => (request.path === '/me' && refusals-- > 0 ? syntheticProblem(429, 'rate_limited', { 'retry-after': '40' }) : undefined));
      assert.ok((await h.client.me.get()).id);
      assert.deepEqual(told, ['client 40000 1/3 rate_limited', 'client 40000 2/3 rate_limited']);
      assert.deepEqual(h.sleeps, [40000, 40000]);

      // One call's cap goes over the client's: no retry at all, the problem at once.
      told.length = 0;
      h.sleeps.length = 0;
      h.intercept((request) => (request.path === '/me' ? syntheticProblem(503, 'overloaded', { 'retry-after': '1' }) : undefined));
      assert.ok(isProblem(await h.client.me.get({ retry: { maxRetries: 0 } }).catch((e: unknown) => e), 'overloaded'));
      assert.deepEqual([told, h.sleeps], [[], []]);

      // A person who would rather not wait: the call's hook answers false, nothing is slept.
      const perCall: number[] = [];
      const error = await h.client.me.get({ onRetry: (wait) => (perCall.push(wait.ms), false) }).catch((e: unknown) => e);
      assert.ok(isProblem(error, 'overloaded'));
      assert.deepEqual([told, perCall, h.sleeps], [['client 1000 1/3 overloaded'], [1000], []]);

      // Network errors are announced too, with the backoff about to be slept.
      told.length = 0;
      let failures = 1;
      h.intercept((request) => {
        if (request.path === '/me' && failures-- > 0) throw new TypeError('fetch failed');
        return undefined;
      });
      assert.ok((await h.client.me.get()).id);
      assert.equal(told.length, 1);
      assert.match(told[0]!, /^client \d+ 1\/3 VidNetworkError$/);
    });

    it('resends idempotent calls after a network error, never a plain POST', async () => {
      const h = clientFor(t);
      await signUp(h, uniqueName('net'));
      h.intercept((request, _forward, attempt) => {
        if (attempt === 1 && (request.path === '/me' || request.path === '/auth/step-up/begin')) throw new TypeError('fetch failed');
        return undefined;
      });
      assert.ok((await h.client.me.get()).id);
      assert.deepEqual(h.calls('GET', '/me').map((e) => e.status), [undefined, 200]);

      const error = await h.client.request('POST', '/auth/step-up/begin').catch((e: unknown) => e);
      assert.ok(error instanceof VidNetworkError, String(error));
      assert.equal(h.calls('POST', '/auth/step-up/begin').length, 1);
    });

    it('sends If-Match from the last version seen, across get and patch; a stale one is a typed 412', async () => {
      const h = clientFor(t);
      await signUp(h, uniqueName('im'));
      const me = await h.client.me.get();
      const first = await h.client.me.patch({ display_name: 'One' });
      const second = await h.client.me.patch({ locale: 'de' });
      assert.deepEqual(h.calls('PATCH', '/me').map((e) => e.headers.get('if-match')), [`"${me.version}"`, `"${first.version}"`]);
      assert.equal(second.version, me.version + 2);

      // Another device of the same person changes it meanwhile.
      const other = clientFor(t, { authenticator: h.authenticator });
      await other.client.login({ getAssertion: other.getAssertion });
      await other.client.me.get();
      await other.client.me.patch({ display_name: 'From elsewhere' });

      const stale = await h.client.me.patch({ display_name: 'Mine' }).catch((e: unknown) => e);
      assert.ok(isProblem(stale, 'version_mismatch'));
      assert.equal(stale.status, 412);
      // Until the person reads again, the stale version is what the client holds: 412 again, not 428.
      assert.ok(isProblem(await h.client.me.patch({ display_name: 'Mine' }).catch((e: unknown) => e), 'version_mismatch'));
      assert.equal(h.calls('PATCH', '/me').at(-1)!.headers.get('if-match'), `"${second.version}"`);
      await h.client.me.get();
      assert.equal((await h.client.me.patch({ display_name: 'Mine' })).display_name, 'Mine');

      // A client that never read the resource sends none: the server asks for it.
      const fresh = clientFor(t, { authenticator: h.authenticator });
      await fresh.client.login({ getAssertion: fresh.getAssertion });
      assert.ok(isProblem(await fresh.client.me.patch({ locale: 'fr' }).catch((e: unknown) => e), 'precondition_required'));
      assert.equal((await fresh.client.me.patch({ locale: 'fr' }, { ifMatch: second.version + 2 })).locale, 'fr');
    });

    it('iterates cursor pages: every session once, in pages of the requested size', async () => {
      const h = clientFor(t);
      await signUp(h, uniqueName('pg'));
      for (let i = 0; i < 4; i++) {
        const device = clientFor(t, { authenticator: h.authenticator });
        await device.client.login({ getAssertion: device.getAssertion });
      }
      const pages = [];
      for await (const page of h.client.sessions.list({ limit: 2 }).pages()) pages.push(page);
      assert.deepEqual(pages.map((p) => p.data.length), [2, 2, 1]);
      assert.deepEqual(pages.map((p) => p.has_more), [true, true, false]);
      const gets = h.calls('GET', '/auth/sessions');
      assert.equal(gets.length, 3);
      assert.equal(new URLSearchParams(gets[1]!.path.split('?')[1]).get('cursor'), pages[0]!.next_cursor);

      const ids: string[] = [];
      for await (const session of h.client.sessions.list({ limit: 2 })) ids.push(session.id);
      assert.equal(ids.length, 5);
      assert.equal(new Set(ids).size, 5);

      // Typed generic access to any list, and revoking: another session, then this one.
      const all = await h.client.list('/auth/sessions', { query: { limit: 200 } }).toArray();
      const other = all.find((s) => !s.current)!;
      await h.client.sessions.revoke(other.id);
      assert.equal((await h.client.sessions.list().toArray()).length, 4);
      const current = all.find((s) => s.current)!;
      await h.client.sessions.revoke(current.id);
      assert.equal(await h.client.session(), undefined, 'revoking this session signs the client out');
    });

    it('answers a step-up challenge for sensitive calls (VID-Step-Up)', async () => {
      const h = clientFor(t);
      await signUp(h, uniqueName('su'));
      const refused = await h.client.request('GET', '/auth/recovery-key').catch((e: unknown) => e);
      assert.ok(refused instanceof VidProblemError && refused.code === 'step_up_required', String(refused));
      const recoveryKey = await h.client.request('GET', '/auth/recovery-key', { stepUp: h.getAssertion });
      assert.equal(typeof recoveryKey, 'string');
      assert.ok(recoveryKey.length > 10);
      assert.ok(h.calls('GET', '/auth/recovery-key')[1]!.headers.get('vid-step-up'));
    });
  });
}
