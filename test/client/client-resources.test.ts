// The client's resource cache against the real server: reads keyed by path, If-None-Match from
// the copy held (a card answers 304), signals that revalidate what is watched and drop what is
// not, a resync that checks everything, and a failed read that keeps what is shown and retries.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientFor, eventually, signUp } from '../../client/test/harness.js';
import { createResourceCache, resourceCovers } from '../../client/src/index.js';
import type { Me, Signal } from '../../client/src/index.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';

const signalOf = (kind: Signal['kind'], resource: string): Signal => ({ id: '1', kind, resource, at: new Date().toISOString() }) as Signal;

describe('client: resource cache keys', () => {
  it('a resource covers its own path and the paths below it, never a sibling', () => {
    assert.equal(resourceCovers('/me', '/me'), true);
    assert.equal(resourceCovers('/me', '/me/fields?limit=200'), true);
    assert.equal(resourceCovers('/profiles', '/profiles/prf_1/preview'), true);
    assert.equal(resourceCovers('/me', '/methods'), false);
    assert.equal(resourceCovers('/auth/methods', '/auth/methods-other'), false);
    assert.equal(resourceCovers('/contacts/ctc_1/card', '/contacts/ctc_2/card'), false);
    assert.equal(resourceCovers('/', '/anything?x=1'), true);
  });

  it('a change reads again its path, its collection, what the signal naming it covers, what is above it and their related resources', async () => {
    const read: string[] = [];
    const send = async (_method: string, path: string) => (read.push(path), { status: 200, data: {}, headers: new Headers() });
    const cache = createResourceCache({ send } as never);
    const keys = ['/me', '/me/fields?limit=200', '/profiles?limit=50', '/profiles/prf_1/preview', '/profiles/prf_1/exposures?limit=200', '/profiles/prf_2/preview',
      '/auth/methods?limit=200', '/auth/totp', '/auth/security-log', '/auth/sessions?limit=50', '/auth/join/code', '/auth/join/pending', '/keys/devices',
      '/subscriptions?status=active', '/blocks', '/contacts?limit=200', '/labels', '/contacts/ctc_1/annotation', '/dav-tokens', '/share-links?limit=200'];
    for (const key of keys) cache.watch(key, () => undefined);
    await new Promise((done) => setTimeout(done, 10));
    const readsAfter = async (path: string) => {
      read.length = 0;
      await cache.changed(path);
      return [...read].sort();
    };
    assert.deepEqual(await readsAfter('/me/fields/fld_1'), ['/auth/security-log', '/me', '/me/fields']);
    // profiles.changed names /profiles: every preview may show the exposure.
    assert.deepEqual(await readsAfter('/profiles/prf_1/exposures/fld_1'), ['/profiles', '/profiles/prf_1/exposures', '/profiles/prf_1/preview', '/profiles/prf_2/preview']);
    assert.deepEqual(await readsAfter('/auth/methods/passkeys/finish'), ['/auth/methods', '/auth/security-log', '/auth/totp', '/keys/devices']);
    assert.deepEqual(await readsAfter('/auth/totp/tot_1/confirm'), ['/auth/methods', '/auth/totp']);
    assert.deepEqual(await readsAfter('/auth/join/approve'), ['/auth/join/code', '/auth/join/pending']);
    assert.deepEqual(await readsAfter('/auth/sessions/ses_1'), ['/auth/security-log', '/auth/sessions']);
    assert.deepEqual(await readsAfter('/subscriptions/sub_1/revoke'), ['/blocks', '/subscriptions']);
    assert.deepEqual(await readsAfter('/contacts/ctc_1/annotation'), ['/contacts', '/contacts/ctc_1/annotation', '/labels']);
    assert.deepEqual(await readsAfter('/dav-tokens/dav_1'), ['/dav-tokens']);
    assert.deepEqual(await readsAfter('/share-links'), ['/share-links']);
    assert.deepEqual(await readsAfter('/auth/logout'), [], 'a top-level name covers nothing below it');
    assert.deepEqual(await readsAfter('/me/photos/pho_1'), ['/auth/security-log', '/me', '/me/fields'], '/me is not read below it; a photo takes its fields');
  });
});

for (const backend of backends) {
  describe(`client: resource cache [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend);
    });
    after(async () => {
      await t.close();
    });

    it('reads once per key, revalidates watched entries on a signal and drops the others', async () => {
      const alice = clientFor(t);
      await signUp(alice, uniqueName('rc'));
      const cache = createResourceCache(alice.client, { related: { '/auth/methods': ['/auth/totp'] } });
      assert.deepEqual(cache.peek('/me'), { data: undefined, etag: undefined, error: undefined, loading: false, settled: false }, 'not loaded is not empty');
      const seen: number[] = [];
      const stop = cache.watch('/me', () => seen.push(cache.peek<Me>('/me').data?.version ?? -1));
      await eventually(() => cache.peek('/me').settled, 3000, '/me read');
      const me = cache.peek<Me>('/me');
      assert.equal(me.data?.username.length ? true : false, true);
      assert.equal(me.etag, `"${me.data!.version}"`);
      assert.equal(alice.calls('GET', '/me').length, 1);
      // A second watcher shares the entry: no second read.
      const stop2 = cache.watch('/me', () => undefined);
      assert.equal(alice.calls('GET', '/me').length, 1);

      // Unwatched entries: read once, then dropped by a signal naming them (related included).
      await cache.read('/auth/totp');
      assert.ok(cache.keys().includes('/auth/totp'));
      await cache.onSignal(signalOf('methods.changed', '/auth/methods'));
      assert.ok(!cache.keys().includes('/auth/totp'), 'dropped, not read again');
      assert.equal(alice.calls('GET', '/auth/totp').length, 1);

      // Another device changes the name: the signal revalidates the watched /me with If-None-Match.
      await alice.client.me.patch({ display_name: 'Alice' });
      await cache.onSignal(signalOf('me.changed', '/me'));
      assert.equal(cache.peek<Me>('/me').data?.display_name, 'Alice');
      const last = alice.calls('GET', '/me').at(-1)!;
      assert.equal(last.headers.get('if-none-match'), me.etag, 'sent the tag held');
      assert.ok(seen.length >= 2);

      // A resync checks every watched entry again.
      const before = alice.calls('GET', '/me').length;
      await cache.resync();
      assert.equal(alice.calls('GET', '/me').length, before + 1);
      stop();
      stop2();
    });

    it('a change this client makes is read again before the call answers, without waiting for its signal', async () => {
      const changes: string[] = [];
      let onChange: (path: string) => Promise<void> = async () => undefined;
      const alice = clientFor(t, { onChanged: (path, method) => (changes.push(`${method} ${path}`), onChange(path)) });
      await signUp(alice, uniqueName('rc'));
      const cache = createResourceCache(alice.client);
      onChange = (path) => cache.changed(path);
      cache.watch('/profiles?limit=50', () => undefined);
      await eventually(() => cache.peek('/profiles?limit=50').settled, 3000, 'profiles read');
      changes.length = 0;
      const created = await alice.client.profiles.create({ name: 'Changed at once' });
      const listed = cache.peek<{ data: { id: string }[] }>('/profiles?limit=50').data?.data ?? [];
      assert.ok(listed.some((p) => p.id === created.id), 'the new profile is listed when create answers');
      assert.deepEqual(changes, ['POST /profiles']);
      // Reads and refusals change nothing.
      await alice.client.request('GET', '/me');
      await assert.rejects(alice.client.profiles.create({ name: 'Changed at once' }));
      assert.deepEqual(changes, ['POST /profiles']);
    });

    it('keeps a card with a 304 and drops it when it is gone', async () => {
      const alice = clientFor(t);
      await signUp(alice, uniqueName('rcard'));
      const profile = await alice.client.profiles.create({ name: 'Friends' });
      const cache = createResourceCache(alice.client);
      const key = `/profiles/${profile.id}/preview`;
      const stop = cache.watch(key, () => undefined);
      await eventually(() => cache.peek(key).settled, 3000, 'the preview');
      const held = cache.peek(key).data;
      assert.equal(await cache.revalidate(key), false, 'unchanged: 304');
      assert.equal(alice.calls('GET', key).at(-1)!.status, 304);
      assert.equal(cache.peek(key).data, held, 'the same copy');
      await alice.client.profiles.remove(profile.id, { ifMatch: profile.version });
      assert.equal(await cache.revalidate(key), true);
      assert.equal(cache.peek(key).data, undefined);
      assert.equal((cache.peek(key).error as { status?: number }).status, 404);
      stop();
    });

    it('keeps what it holds when the network fails, and reads again by itself while watched', async () => {
      const alice = clientFor(t, { retry: { maxRetries: 0 } });
      await signUp(alice, uniqueName('roff'));
      const timers: (() => void)[] = [];
      const cache = createResourceCache(alice.client, { setTimeout: (run) => timers.push(run), clearTimeout: () => undefined });
      const stop = cache.watch('/me/fields', () => undefined);
      await eventually(() => cache.peek('/me/fields').settled, 3000, 'fields');
      const held = cache.peek('/me/fields').data;
      alice.intercept(() => {
        throw new TypeError('fetch failed');
      });
      await cache.revalidate('/me/fields');
      const failed = cache.peek('/me/fields');
      assert.equal(failed.data, held, 'what is shown stays');
      assert.equal((failed.error as Error).name, 'VidNetworkError');
      assert.equal(timers.length, 1, 'a retry is scheduled');
      alice.intercept(undefined);
      timers.shift()!();
      await eventually(() => cache.peek('/me/fields').error === undefined && !cache.peek('/me/fields').loading, 3000, 'the retry');
      stop();
      // Not watched any more: a failure schedules nothing.
      alice.intercept(() => {
        throw new TypeError('fetch failed');
      });
      await cache.revalidate('/me/fields');
      assert.equal(timers.length, 0);
    });
  });
}
