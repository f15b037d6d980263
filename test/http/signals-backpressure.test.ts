// Back-pressure on streams (docs/decisions/020-event-signals.md): the server never holds more
// than a stream's buffer for a client that does not read; a client that stays stuck is dropped
// and resumes from its last received id without a gap; a briefly slow one is only paused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';
import type { Device } from '../helpers/client.js';
import { openSse, startNodes } from '../helpers/nodes.js';
import type { TestCluster, TestNode } from '../helpers/nodes.js';
import { signal } from '../../src/platform/signals/signal.js';

const BUFFER_KB = 16;
/** Big signals fill socket buffers quickly: each carries a 1 KiB resource path. */
/** A long resource (/contacts/ccc…/card), so a few signals fill a stream's buffer. */
const LONG_ID = 'c'.repeat(1000);
const BATCH = 250;
const MAX_BATCHES = 80;

for (const backend of backends) {
  describe(`signals: slow consumers [${backend.name}]`, { skip: backend.skip }, () => {
    let cluster: TestCluster;
    let node: TestNode;
    before(async () => {
      cluster = await startNodes(backend, 1, { EVENTS_STREAM_BUFFER_KB: String(BUFFER_KB), EVENTS_STALL_TIMEOUT_S: '1', EVENTS_HEARTBEAT_S: '0.1' });
      node = cluster.nodes[0]!;
    });
    after(() => cluster.close());

    const emit = (device: Device, count: number) =>
      cluster.store.transaction(async (tx) => {
        for (let i = 0; i < count; i++) await signal(tx, device.accountId, 'contact.card.changed', { id: LONG_ID });
      });

    /** Writes signals until the stream stops taking them (its buffer is full); returns how many. */
    async function fillUntilStalled(device: Device): Promise<number> {
      let emitted = 0;
      for (let i = 0; i < MAX_BATCHES && node.streams.stats().stalled === 0; i++) {
        await emit(device, BATCH);
        emitted += BATCH;
        await sleep(20);
      }
      assert.equal(node.streams.stats().stalled, 1, `the stream never stalled after ${emitted} signals`);
      return emitted;
    }

    const seqOf = (id: string) => Number(Buffer.from(id, 'base64url').toString().split('.')[1]);

    it('drops a client that stops reading, holding at most its buffer meanwhile; it resumes with Last-Event-ID, exactly once, in order', async () => {
      const device = await node.client.signUp(uniqueName('slow'));
      const start = (await node.client.as(device, 'GET', '/api/v1/events')).body.next_cursor;
      const slow = await openSse(node.client, device, { since: start });
      slow.response.pause();
      let emitted = await fillUntilStalled(device);
      // While stalled, more signals cost the server nothing: they stay in the log.
      await emit(device, BATCH);
      emitted += BATCH;
      const stats = node.streams.stats();
      const largestSignal = 1300;
      assert.ok(stats.peakBufferedBytes <= BUFFER_KB * 1024 + largestSignal, `peak buffered ${stats.peakBufferedBytes} bytes`);

      // Still not reading when the stall timeout passes (on the server's clock): dropped at the
      // next sweep, which runs every heartbeat (0.1 s here).
      const dropped = stats.droppedSlowConsumers;
      cluster.clock.advance(1_001);
      for (let i = 0; i < 40 && node.streams.stats().droppedSlowConsumers === dropped; i++) await sleep(100);
      assert.equal(node.streams.stats().droppedSlowConsumers, dropped + 1);
      assert.equal(node.streams.stats().streams, 0);

      // The client reads what reached it (a contiguous prefix), sees the end, and resumes.
      slow.response.resume();
      await slow.waitForEnd(5000);
      const got = slow.signals;
      assert.ok(got.length > 0 && got.length < emitted, `received ${got.length} of ${emitted} before the drop`);
      const first = seqOf(got[0]!.id);
      assert.deepEqual(got.map((s) => seqOf(s.id)), got.map((_, i) => first + i));

      const resumed = await openSse(node.client, device, { lastEventId: slow.lastEventId });
      const rest = await resumed.waitForSignals(emitted - got.length, 10_000);
      const all = [...got, ...rest].map((s) => seqOf(s.id));
      assert.deepEqual(all, Array.from({ length: emitted }, (_, i) => first + i));
      await sleep(100);
      assert.equal(resumed.signals.length, emitted - got.length, 'nothing twice');
      resumed.close();
    });

    it('only pauses a client that is briefly slow: once it reads again it gets everything, exactly once', async () => {
      const device = await node.client.signUp(uniqueName('brief'));
      const start = (await node.client.as(device, 'GET', '/api/v1/events')).body.next_cursor;
      const client = await openSse(node.client, device, { since: start });
      client.response.pause();
      const dropped = node.streams.stats().droppedSlowConsumers;
      const emitted = await fillUntilStalled(device);
      client.response.resume();
      const got = await client.waitForSignals(emitted, 10_000);
      const first = seqOf(got[0]!.id);
      assert.deepEqual(got.map((s) => seqOf(s.id)), got.map((_, i) => first + i));
      assert.equal(node.streams.stats().droppedSlowConsumers, dropped);
      assert.equal(client.ended, false);
      client.close();
    });
  });
}
