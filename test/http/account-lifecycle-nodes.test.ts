// PRODUCT §8 across nodes: every node runs the purge; run on two at once over the same due
// accounts, each account is purged exactly once and each subscriber hears of it once. And a
// deleted account's open event stream ends on whichever node holds it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';
import type { Device } from '../helpers/client.js';
import { openSse, postOn, startNodes } from '../helpers/nodes.js';
import type { TestCluster, TestNode } from '../helpers/nodes.js';
import { logInAs, stepUp } from '../helpers/step-up.js';

const postgres = backends.find((b) => b.name === 'postgres')!;
const DAY = 86_400_000;
const OWNERS = 12;

describe('account lifecycle on two nodes', { skip: postgres.skip }, () => {
  let cluster: TestCluster;
  let one: TestNode;
  let two: TestNode;
  before(async () => {
    // The purge runs only when the test runs it: on a slow machine the minutely maintenance could purge some first.
    cluster = await startNodes(postgres, 2, { EVENTS_HEARTBEAT_S: '0.2', MAINTENANCE_INTERVAL_S: '86400' });
    [one, two] = cluster.nodes as [TestNode, TestNode];
  });
  after(() => cluster.close());

  const remove = async (node: TestNode, device: Device) => {
    const res = await node.client.as(device, 'DELETE', '/api/v1/account', { headers: { 'vid-step-up': await stepUp(node.client, device) } });
    assert.equal(res.status, 202, JSON.stringify(res.body));
  };

  it('a deletion on node 1 ends the account\'s stream on node 2', async () => {
    const alice = await one.client.signUp(uniqueName('alice'));
    const stream = await openSse(two.client, alice);
    await stream.waitForComment('heartbeat');
    await remove(one, alice);
    await stream.waitForEnd(3000);
  });

  it('a lock on node 1 ends the account\'s stream on node 2 and node 2 refuses it at once', async () => {
    const alice = await one.client.signUp(uniqueName('alice'));
    const laptop = await logInAs(two.client, alice);
    const stream = await openSse(two.client, laptop);
    await stream.waitForComment('heartbeat');
    await one.services.locks.lock(alice.username, 'compromised');
    await stream.waitForEnd(3000);
    for (const node of [one, two]) {
      const res = await node.client.as(laptop, 'GET', '/api/v1/me');
      assert.equal(res.status, 403);
      assert.equal(res.body.code, 'account_locked');
    }
  });

  it('purges each due account once when both nodes run the purge at the same moment', async () => {
    const bob = await one.client.signUp(uniqueName('bob'));
    const owners: Device[] = [];
    for (let i = 0; i < OWNERS; i++) {
      const owner = await (i % 2 ? two : one).client.signUp(uniqueName(`owner${i}x`));
      const profile = await postOn(one, owner, '/profiles', { name: 'Friends' });
      const request = await postOn(two, bob, '/contacts', { username: owner.username });
      await postOn(one, owner, `/subscriptions/${request.id}/approve`, { profile_id: profile.id });
      await remove(i % 2 ? one : two, owner);
      owners.push(owner);
    }
    cluster.clock.advance(31 * DAY);
    const before = await cluster.store.handle.db.selectFrom('events').select('seq').where('account_id', '=', bob.accountId).where('kind', '=', 'contacts.changed').execute();
    const now = cluster.clock.now();
    // Every account due now (the first test's deletion too): each must be purged by exactly one node.
    const due = await cluster.store.handle.db.selectFrom('accounts').select('id').where('purged_at', 'is', null).where('purge_at', '<=', now).execute();
    assert.ok(due.length >= OWNERS);
    const [a, b] = await Promise.all([one.services.purge.run(now), two.services.purge.run(now)]);
    assert.equal(a.failed + b.failed, 0);
    assert.equal(a.purged + b.purged, due.length, `purged ${a.purged} + ${b.purged}`);
    const afterwards = await cluster.store.handle.db.selectFrom('events').select('seq').where('account_id', '=', bob.accountId).where('kind', '=', 'contacts.changed').execute();
    assert.equal(afterwards.length - before.length, OWNERS, 'one contacts.changed per purged account');
    const fresh = await logInAs(two.client, bob);
    const contacts = await two.client.as(fresh, 'GET', '/api/v1/contacts?limit=50');
    assert.deepEqual(new Set(contacts.body.data.map((c: any) => c.status)), new Set(['ended']));
    for (const owner of owners) {
      const row = await cluster.store.handle.db.selectFrom('accounts').select(['purged_at', 'display_name']).where('id', '=', owner.accountId).executeTakeFirstOrThrow();
      assert.equal(Number(row.purged_at), now);
    }
  });
});
