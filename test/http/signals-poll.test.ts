// Signals and polling (PRODUCT §7 "Signals", GET /events; §0 cursors): the log written in the
// change's transaction, cursor format and checks, retention and 410.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { uniqueName } from '../helpers/client.js';
import type { Device } from '../helpers/client.js';
import { signal } from '../../src/platform/signals/signal.js';
import { signalLog } from '../../src/platform/signals/log.js';
import { expectProblem } from '../helpers/problem.js';

const EVENTS = '/api/v1/events';
const DAY_MS = 24 * 3600 * 1000;

for (const backend of backends) {
  describe(`signals: the signal log and GET /events [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend);
    });
    after(() => t.close());

    const poll = (device: Device, query = '') => t.client.as(device, 'GET', `${EVENTS}${query}`);

    async function rename(device: Device, name: string): Promise<void> {
      const me = await t.client.as(device, 'GET', '/api/v1/me');
      const res = await t.client.as(device, 'PATCH', '/api/v1/me', { body: { display_name: name }, headers: { 'if-match': me.headers.get('etag')! } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    }

    /** After the clock jumps, the access token has expired: renew it (no signal is written). */
    async function renew(device: Device): Promise<void> {
      const res = await t.client.call('POST', '/api/v1/auth/token/renew', { body: { refresh_token: device.tokens.refresh_token }, key: device.key });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      device.tokens = res.body;
    }

    it('records the signals of the routes already built, oldest first, with a cursor per signal', async () => {
      const device = await t.client.signUp(uniqueName('ev'));
      await rename(device, 'Ada');
      const passkey = (await t.client.as(device, 'GET', '/api/v1/auth/methods')).body.data[0];
      const renamed = await t.client.as(device, 'PATCH', `/api/v1/auth/methods/${passkey.id}`, { body: { name: 'Laptop' }, headers: { 'if-match': `"${passkey.version}"` } });
      assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
      const second = await t.client.logIn(device.authenticator);
      assert.equal(second.status, 200);
      await t.client.call('POST', '/api/v1/auth/logout', { key: second.key, token: second.body.access_token });

      const res = await poll(device);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.deepEqual(
        res.body.data.map((s: any) => [s.kind, s.resource]),
        [
          ['sessions.changed', '/auth/sessions'], // sign-up opened a session
          ['me.changed', '/me'],
          ['methods.changed', '/auth/methods'],
          ['sessions.changed', '/auth/sessions'], // login
          ['sessions.changed', '/auth/sessions'], // logout
        ],
      );
      for (const signal of res.body.data) {
        assert.deepEqual(Object.keys(signal).sort(), ['at', 'id', 'kind', 'resource']);
        assert.equal(new Date(signal.at).getTime(), t.clock.now());
      }
      assert.equal(new Set(res.body.data.map((s: any) => s.id)).size, 5);
      assert.equal(res.body.has_more, false);
      assert.equal(res.body.next_cursor, res.body.data[4].id);

      // Polling after the last cursor: nothing new, and the same position to come back with.
      const again = await poll(device, `?since=${res.body.next_cursor}`);
      assert.deepEqual(again.body, { data: [], next_cursor: res.body.next_cursor, has_more: false });
    });

    it('pages with limit: no duplicates or gaps, even with signals written between pages', async () => {
      const device = await t.client.signUp(uniqueName('page'));
      for (let i = 0; i < 4; i++) await rename(device, `name ${i}`);
      const first = await poll(device, '?limit=2');
      assert.equal(first.body.data.length, 2);
      assert.equal(first.body.has_more, true);
      await rename(device, 'late');
      const seen = [...first.body.data];
      let cursor = first.body.next_cursor;
      for (;;) {
        const page = await poll(device, `?since=${cursor}&limit=2`);
        assert.equal(page.status, 200);
        seen.push(...page.body.data);
        cursor = page.body.next_cursor;
        if (!page.body.has_more) break;
      }
      assert.equal(seen.length, 6); // sign-up + 5 renames
      assert.equal(new Set(seen.map((s) => s.id)).size, 6);
      const all = await poll(device, '?limit=200');
      assert.deepEqual(seen, all.body.data);
      // `cursor` is the list convention's name for the same thing.
      const viaCursor = await poll(device, `?cursor=${first.body.next_cursor}&limit=200`);
      assert.deepEqual(viaCursor.body.data, all.body.data.slice(2));
    });

    it('writes a signal only with its change: a rolled-back transaction leaves none, and wakes no one', async () => {
      const device = await t.client.signUp(uniqueName('rollback'));
      const woken: string[] = [];
      const unsubscribe = t.store.onSignalsCommitted((records) => woken.push(...records.map((r) => r.kind)));
      await assert.rejects(
        t.store.transaction(async (tx) => {
          await tx.db.updateTable('accounts').set({ display_name: 'never', version: 2 }).where('id', '=', device.accountId).execute();
          await signal(tx, device.accountId, 'me.changed');
          throw new Error('abort');
        }),
        /abort/,
      );
      // A refused change (stale If-Match) writes nothing either.
      const stale = await t.client.as(device, 'PATCH', '/api/v1/me', { body: { display_name: 'x' }, headers: { 'if-match': '"99"' } });
      assert.equal(stale.status, 412);
      await t.store.transaction((tx) => signal(tx, device.accountId, 'fields.changed'));
      unsubscribe();
      assert.deepEqual(woken, ['fields.changed']);
      const res = await poll(device);
      assert.deepEqual(res.body.data.map((s: any) => s.kind), ['sessions.changed', 'fields.changed']);
      const head = await t.store.use(signalLog).head(device.accountId);
      assert.equal(head, 2, 'the rolled-back sequence number was not taken');
    });

    it('refuses malformed cursors with 400 invalid_cursor', async () => {
      const device = await t.client.signUp(uniqueName('badcur'));
      const valid = (await poll(device)).body.next_cursor as string;
      const forged = (text: string) => Buffer.from(text).toString('base64url');
      const tag = Buffer.from(valid, 'base64url').toString().split('.')[2];
      for (const bad of ['nope', '%%%', forged('1.-1.' + tag), forged('1.01.' + tag), forged('2.1.' + tag), forged('1.1'), `${valid}=`, valid.slice(0, -1), forged('1.99.' + tag)]) {
        const res = await poll(device, `?since=${encodeURIComponent(bad)}`);
        expectProblem(res, 400, 'invalid_cursor');
      }
      expectProblem(await poll(device, `?since=${valid}&cursor=${forged('1.0.' + tag)}`), 400, 'invalid_cursor');
      const tooLong = await poll(device, `?since=${'a'.repeat(600)}`);
      assert.equal(tooLong.status, 400);
    });

    it('refuses a cursor issued to another account with the same 400, telling nothing about it', async () => {
      const alice = await t.client.signUp(uniqueName('alice'));
      const bob = await t.client.signUp(uniqueName('bob'));
      await rename(bob, 'Bob');
      const bobs = await poll(bob);
      const res = await poll(alice, `?since=${bobs.body.data[0].id}`);
      expectProblem(res, 400, 'invalid_cursor');
      const malformed = await poll(alice, '?since=nope');
      assert.equal(res.body.detail, malformed.body.detail);
      assert.doesNotMatch(JSON.stringify(res.body), new RegExp(`${bob.accountId}|${bob.username}|Bob`));
    });

    it('keeps signals for the retention (30 days by default); past it a cursor is 410 cursor_expired, the pruner deletes them', async () => {
      assert.equal(t.config.events.retentionDays, 30);
      const device = await t.client.signUp(uniqueName('expire'));
      const start = (await poll(device)).body.next_cursor;
      await rename(device, 'old');
      t.clock.advance(29 * DAY_MS);
      await renew(device);
      await rename(device, 'recent');
      const other = await t.client.signUp(uniqueName('expire-other'));
      const pruneAt = (days: number) => t.store.use(signalLog).prune(t.clock.now() - days * DAY_MS);

      assert.equal(await pruneAt(30), 0, 'nothing is 30 days old yet');
      assert.equal((await poll(device, `?since=${start}`)).body.data.length, 2);

      t.clock.advance(2 * DAY_MS); // "old" is now 31 days old
      await renew(device);
      await renew(other);
      assert.ok((await pruneAt(30)) >= 1);
      expectProblem(await poll(device, `?since=${start}`), 410, 'cursor_expired');
      // Without a cursor: what is left, and a cursor to continue from.
      const left = await poll(device);
      assert.deepEqual(left.body.data.map((s: any) => s.kind), ['me.changed']);
      const resumed = await poll(device, `?since=${left.body.next_cursor}`);
      assert.deepEqual(resumed.body.data, []);
      // Other accounts' recent signals are untouched.
      assert.equal((await poll(other)).body.data.length, 1);

      t.clock.advance(29 * DAY_MS);
      await renew(device);
      t.clock.advance(2 * DAY_MS);
      await renew(device);
      await pruneAt(30);
      const empty = await poll(device);
      assert.deepEqual(empty.body.data, []);
      expectProblem(await poll(device, `?since=${start}`), 410, 'cursor_expired');
      // The newest signal's own cursor is fine although that signal is gone: nothing came after it.
      assert.equal((await poll(device, `?since=${left.body.data[0].id}`)).status, 200);
      // The position of an account with nothing retained still works: nothing was missed after it.
      assert.equal((await poll(device, `?since=${empty.body.next_cursor}`)).status, 200);
    });

    it('needs the DPoP-bound token', async () => {
      const device = await t.client.signUp(uniqueName('evauth'));
      const noProof = await t.client.call('GET', EVENTS, { token: device.tokens.access_token });
      assert.equal(noProof.status, 401);
      const noToken = await t.client.call('GET', EVENTS, {});
      assert.equal(noToken.status, 401);
    });
  });
}
