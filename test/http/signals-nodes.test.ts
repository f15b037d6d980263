// Delivery across server nodes (PRODUCT §7: "reaches clients on any server node"): two
// instances, each with its own pool, on one PostgreSQL database; LISTEN/NOTIFY wakes them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { LISTENER_NAME } from '../../src/platform/signals/notifier.js';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';
import type { Device } from '../helpers/client.js';
import { openSse, openWs, startNodes } from '../helpers/nodes.js';
import type { TestCluster, TestNode } from '../helpers/nodes.js';
import { signal } from '../../src/platform/signals/signal.js';

const postgres = backends.find((b) => b.name === 'postgres')!;

describe('signals: live delivery across two nodes on one PostgreSQL database', { skip: postgres.skip }, () => {
  let cluster: TestCluster;
  let a: TestNode;
  let b: TestNode;
  before(async () => {
    cluster = await startNodes(postgres, 2, { EVENTS_HEARTBEAT_S: '0.2' });
    [a, b] = cluster.nodes as [TestNode, TestNode];
  });
  after(() => cluster.close());

  async function rename(node: TestNode, device: Device, name: string): Promise<void> {
    const me = await node.client.as(device, 'GET', '/api/v1/me');
    const res = await node.client.as(device, 'PATCH', '/api/v1/me', { body: { display_name: name }, headers: { 'if-match': me.headers.get('etag')! } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  }

  it('runs two nodes with separate stores on one schema', () => {
    assert.notEqual(a.store, b.store);
    assert.equal(a.store.handle.schema, b.store.handle.schema);
    assert.notEqual(a.baseUrl, b.baseUrl);
  });

  it('delivers a change made through node A to SSE and WebSocket streams held on node B, within a fraction of a second', async () => {
    const device = await a.client.signUp(uniqueName('nodes'));
    const onB = await openSse(b.client, device);
    const wsOnB = await openWs(b.client, device);
    assert.ok(wsOnB.ok);
    const onA = await openSse(a.client, device);
    await onB.waitForComment('heartbeat');
    const latencies: number[] = [];
    for (let i = 0; i < 5; i++) {
      const sent = performance.now();
      await rename(a, device, `from A ${i}`);
      await onB.waitForSignals(i + 1, 2000);
      latencies.push(performance.now() - sent);
    }
    assert.ok(Math.max(...latencies) < 1000, `latencies ${latencies.map((l) => l.toFixed(1)).join(', ')} ms`);
    const polled = await b.client.as(device, 'GET', '/api/v1/events?limit=200');
    const mine = polled.body.data.slice(-5);
    assert.deepEqual(onB.signals, mine);
    assert.deepEqual(await wsOnB.ws.waitForSignals(5), mine);
    assert.deepEqual(await onA.waitForSignals(5), mine);
    await sleep(100);
    assert.equal(onB.signals.length, 5, 'each signal once, though node B heard it from PostgreSQL only');
    for (const s of [onA, onB]) s.close();
    wsOnB.ws.close();
  });

  it('never wakes node B for a rolled-back change', async () => {
    const device = await a.client.signUp(uniqueName('nodesrb'));
    const onB = await openSse(b.client, device);
    await onB.waitForComment('heartbeat');
    await assert.rejects(
      a.store.transaction(async (tx) => {
        await signal(tx, device.accountId, 'fields.changed');
        throw new Error('abort');
      }),
    );
    await sleep(300);
    assert.deepEqual(onB.signals, []);
    await a.store.transaction((tx) => signal(tx, device.accountId, 'me.changed'));
    const [received] = await onB.waitForSignals(1, 2000);
    assert.equal(received!.kind, 'me.changed');
    onB.close();
  });

  it('closes on node B the stream of a session revoked through node A', async () => {
    const device = await a.client.signUp(uniqueName('nodesrv'));
    const login = await b.client.logIn(device.authenticator);
    const other: Device = { ...device, key: login.key, tokens: login.body };
    const theirs = await openSse(b.client, other);
    await theirs.waitForComment('heartbeat');
    const res = await a.client.as(device, 'DELETE', `/api/v1/auth/sessions/${other.tokens.session_id}`);
    assert.equal(res.status, 204);
    await theirs.waitForEnd(1000);
    assert.ok(theirs.comments.includes('closed revoked'));
  });

  it('survives a lost LISTEN connection: it reconnects and re-reads, so nothing sent meanwhile is missed', async () => {
    const device = await a.client.signUp(uniqueName('nodeslost'));
    const onB = await openSse(b.client, device);
    await onB.waitForComment('heartbeat');
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    try {
      const killed = await admin.query(`select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1 and query ilike $2`, [
        LISTENER_NAME,
        `listen "vid_events_%`,
      ]);
      assert.ok(killed.rowCount! >= 2, `listeners terminated: ${killed.rowCount}`);
    } finally {
      await admin.end();
    }
    await rename(a, device, 'while B was deaf');
    const [signal] = await onB.waitForSignals(1, 5000);
    assert.equal(signal!.kind, 'me.changed');
    // And live again afterwards.
    await rename(a, device, 'after');
    await onB.waitForSignals(2, 2000);
    onB.close();
  });
});
