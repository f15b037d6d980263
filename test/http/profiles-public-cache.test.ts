// The public card served from each node's cache (decision 240; PRODUCT §6): a change on one node
// is never served after it on the same node, and on another node only until its wake-up arrives
// (milliseconds); a hidden field, an unpublished profile and a locked or deleted account are never
// served again once seen gone. The cache's own race (a read that started before a change) is
// tested directly.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createPublicCardCache } from '../../src/modules/profiles/public-card-cache.js';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';
import type { Device } from '../helpers/client.js';
import { postOn, startNodes } from '../helpers/nodes.js';
import type { TestCluster, TestNode } from '../helpers/nodes.js';

const API = '/api/v1';

describe('profiles: the public-card cache', () => {
  it('does not keep what a read found when its owner changed while it ran, and forgets an owner\'s card on any change', () => {
    let now = 0;
    const cache = createPublicCardCache({ now: () => now, ttlMs: 1000, capacity: 3 });
    const card = { accountId: 'acc_a', json: '{}', etag: '"a"' };
    let mark = cache.mark();
    cache.forget('acc_a');
    cache.put('alice', card, mark);
    assert.equal(cache.get('alice'), undefined, 'a read that raced a change of its owner is not kept');
    mark = cache.mark();
    cache.forget('acc_b');
    cache.put('alice', card, mark);
    assert.deepEqual(cache.get('alice'), card, 'another account\'s change does not stop it');
    cache.forget('acc_a');
    mark = cache.mark();
    for (const other of ['acc_c', 'acc_d', 'acc_e', 'acc_f']) cache.forget(other);
    cache.put('alice', card, mark);
    assert.equal(cache.get('alice'), undefined, 'past the bound of owners remembered, any read that ran meanwhile is not kept');
    mark = cache.mark();
    cache.forgetAll();
    cache.put('alice', card, mark);
    assert.equal(cache.get('alice'), undefined, 'nor one that ran while everything was forgotten');
    cache.put('alice', card, cache.mark());
    assert.deepEqual(cache.get('alice'), card);
    cache.forget('acc_a');
    assert.equal(cache.get('alice'), undefined);
    cache.put('alice', card, cache.mark());
    now = 1000;
    assert.equal(cache.get('alice'), undefined, 'entries expire');
    cache.put('alice', card, cache.mark());
    cache.forgetAll();
    assert.equal(cache.size(), 0);
  });
});

for (const backend of backends) {
  describe(`profiles: public cards across nodes, never served once gone [${backend.name}]`, { skip: backend.skip }, () => {
    let cluster: TestCluster;
    let writer: TestNode;
    let reader: TestNode;
    before(async () => {
      cluster = await startNodes(backend, backend.name === 'postgres' ? 2 : 1);
      writer = cluster.nodes[0]!;
      reader = cluster.nodes.at(-1)!;
    });
    after(() => cluster.close());

    const read = async (username: string) => {
      const res = await reader.client.call('GET', `${API}/public/${username}`);
      return { status: res.status, body: res.body, etag: res.headers.get('etag') };
    };

    /** Reads until `gone(card)` holds (the wake-up crossing nodes), then checks it keeps holding. */
    async function untilAndAfter(username: string, gone: (res: Awaited<ReturnType<typeof read>>) => boolean, what: string): Promise<void> {
      const deadline = Date.now() + 2000;
      while (!gone(await read(username))) {
        assert.ok(Date.now() < deadline, `${what}: still served 2 s after the change`);
        await sleep(5);
      }
      for (let i = 0; i < 20; i++) assert.ok(gone(await read(username)), `${what}: served again after it was gone`);
    }

    async function owner(): Promise<{ device: Device; fieldId: string; profileId: string }> {
      const device = await writer.client.signUp(uniqueName('pub'));
      const field = await postOn(writer, device, '/me/fields', { type: 'nickname', value: 'Ally' });
      const profile = await postOn(writer, device, '/profiles', { name: 'Public', public: true });
      assert.equal((await writer.client.as(device, 'PUT', `${API}/profiles/${profile.id}/exposures/${field.id}`, { body: {} })).status, 201);
      return { device, fieldId: field.id, profileId: profile.id };
    }

    it('stops showing a hidden field, an unpublished profile, and a locked account\'s card', async () => {
      const o = await owner();
      const shown = await read(o.device.username);
      assert.equal(shown.status, 200);
      assert.equal(shown.body.fields.length, 1);
      assert.deepEqual((await read(o.device.username)).body, shown.body, 'served again from the cache');
      const revalidated = await reader.client.call('GET', `${API}/public/${o.device.username}`, { headers: { 'if-none-match': shown.etag! } });
      assert.equal(revalidated.status, 304);

      assert.equal((await writer.client.as(o.device, 'DELETE', `${API}/profiles/${o.profileId}/exposures/${o.fieldId}`)).status, 204);
      if (writer === reader) assert.equal((await read(o.device.username)).body.fields.length, 0, 'same node: gone at once');
      await untilAndAfter(o.device.username, (res) => res.status === 200 && res.body.fields.length === 0, 'the hidden field');

      const profile = await writer.client.as(o.device, 'GET', `${API}/profiles/${o.profileId}`);
      assert.equal((await writer.client.as(o.device, 'PATCH', `${API}/profiles/${o.profileId}`, { body: { public: false }, headers: { 'if-match': profile.headers.get('etag')! } })).status, 200);
      await untilAndAfter(o.device.username, (res) => res.status === 404, 'the unpublished profile');
    });

    it('forgets the card of an account locked by an operator', async () => {
      const o = await owner();
      assert.equal((await read(o.device.username)).status, 200);
      await writer.services.locks.lock(o.device.username, 'test');
      await untilAndAfter(o.device.username, (res) => res.status === 404, 'the locked account');
      await writer.services.locks.unlock(o.device.username);
      await untilAndAfter(o.device.username, (res) => res.status === 200, 'the unlocked account');
    });
  });
}
