// PRODUCT §4 and §7 across nodes: Alice edits her phone through node 1; Bob, her subscriber,
// holds his event stream on node 2 and hears contact.card.changed there, then pulls the new card.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';
import { openSse, postOn, startNodes } from '../helpers/nodes.js';
import type { TestCluster, TestNode } from '../helpers/nodes.js';

const postgres = backends.find((b) => b.name === 'postgres')!;

describe('contacts: a card change on node 1 reaches the subscriber\'s stream on node 2', { skip: postgres.skip }, () => {
  let cluster: TestCluster;
  let one: TestNode;
  let two: TestNode;
  before(async () => {
    cluster = await startNodes(postgres, 2, { EVENTS_HEARTBEAT_S: '0.2' });
    [one, two] = cluster.nodes as [TestNode, TestNode];
  });
  after(() => cluster.close());

  it('signals Bob on node 2 within a fraction of a second, and his card shows the new number', async () => {
    const alice = await one.client.signUp(uniqueName('alice'));
    const bob = await two.client.signUp(uniqueName('bob'));
    const phone = await postOn(one, alice, '/me/fields', { type: 'phone', value: '+49 30 22732152' });
    const work = await postOn(one, alice, '/profiles', { name: 'Work' });
    await one.client.as(alice, 'PUT', `/api/v1/profiles/${work.id}/exposures/${phone.id}`, { body: {} });
    const contact = await postOn(two, bob, '/contacts', { username: alice.username });
    await postOn(one, alice, `/subscriptions/${contact.id}/approve`, { profile_id: work.id });

    const stream = await openSse(two.client, bob);
    await stream.waitForComment('heartbeat');
    const sent = performance.now();
    const edited = await one.client.as(alice, 'PATCH', `/api/v1/me/fields/${phone.id}`, { body: { value: '+49 30 22730' }, headers: { 'if-match': '"1"' } });
    assert.equal(edited.status, 200);
    const [signal] = await stream.waitForSignals(1, 3000);
    const latency = performance.now() - sent;
    assert.equal(signal!.kind, 'contact.card.changed');
    assert.equal(signal!.resource, `/contacts/${contact.id}/card`);
    assert.ok(latency < 1000, `delivered in ${latency.toFixed(0)} ms`);
    const card = await two.client.as(bob, 'GET', `/api/v1/contacts/${contact.id}/card`);
    assert.equal(card.body.fields[0].value, '+493022730');
    stream.close();
  });
});
