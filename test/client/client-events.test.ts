// The client's event stream against the real server (PRODUCT §7): fetch-streamed SSE with DPoP,
// Last-Event-ID resume after a broken connection, resume from a saved cursor, resync on a bad
// cursor, and the polling fallback.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { clientFor, eventually, signUp } from '../../client/test/harness.js';
import type { ClientHarness } from '../../client/test/harness.js';
import type { Signal, StreamOptions, StreamState } from '../../client/src/index.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';

interface Following {
  signals: Signal[];
  cursors: string[];
  states: StreamState[];
  resyncs: number;
  done: Promise<void>;
  stop(): Promise<void>;
}

for (const backend of backends) {
  describe(`client: event stream [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    const running: Following[] = [];
    before(async () => {
      t = await startTestApp(backend);
    });
    afterEach(async () => {
      for (const f of running.splice(0)) await f.stop();
    });
    after(async () => {
      await t.close();
    });

    function follow(h: ClientHarness, options: Partial<StreamOptions> = {}): Following {
      const controller = new AbortController();
      const f: Following = {
        signals: [],
        cursors: [],
        states: [],
        resyncs: 0,
        done: Promise.resolve(),
        stop: async () => {
          controller.abort();
          await f.done;
        },
      };
      f.done = h.client.events.stream({
        signal: controller.signal,
        reconnectDelayMs: 10,
        pollIntervalMs: 20,
        onSignal: (signal) => {
          f.signals.push(signal);
        },
        onCursor: (cursor) => {
          f.cursors.push(cursor);
        },
        onStateChange: (state) => {
          f.states.push(state);
        },
        onResync: () => {
          f.resyncs++;
        },
        ...options,
      });
      running.push(f);
      return f;
    }

    async function rename(h: ClientHarness, name: string): Promise<void> {
      await h.client.me.get();
      await h.client.me.patch({ display_name: name });
    }

    it('streams signals over fetch with DPoP: me.changed after a PATCH /me', async () => {
      const h = clientFor(t);
      await signUp(h, uniqueName('ev'));
      const f = follow(h, { mode: 'stream' });
      await eventually(() => f.states.includes('streaming'), 3000, 'the stream to open');
      assert.equal(f.signals.length, 0, 'a new stream starts from now on');
      assert.equal(f.cursors.length, 1, 'the opening block gives the starting cursor');

      await rename(h, 'Streamed');
      await eventually(() => f.signals.length === 1, 3000, 'me.changed');
      const [signal] = f.signals;
      assert.equal(signal!.kind, 'me.changed');
      assert.equal(signal!.resource, '/me');
      assert.equal(f.cursors.at(-1), signal!.id);

      const request = h.calls('GET', '/events/stream')[0]!;
      assert.equal(request.headers.get('accept'), 'text/event-stream');
      assert.match(request.headers.get('authorization') ?? '', /^DPoP /);
      assert.ok(request.headers.get('dpop'));
      await f.stop();
    });

    it('resumes with Last-Event-ID after the connection breaks: no gap, no repeat', async () => {
      const h = clientFor(t);
      await signUp(h, uniqueName('ev'));
      // The first connection breaks right after it has delivered one signal.
      h.intercept(async (request, forward, attempt) => {
        if (request.path !== '/events/stream' || attempt !== 1) return undefined;
        const response = await forward();
        const reader = response.body!.getReader();
        const body = new ReadableStream<Uint8Array>({
          async pull(controller) {
            const { done, value } = await reader.read();
            if (done) return controller.close();
            controller.enqueue(value);
            if (new TextDecoder().decode(value).includes('event:')) {
              await reader.cancel();
              controller.error(new TypeError('network connection lost'));
            }
          },
        });
        return new Response(body, { status: response.status, headers: response.headers });
      });
      const f = follow(h, { mode: 'stream' });
      await eventually(() => f.states.includes('streaming'), 3000, 'the stream to open');
      await rename(h, 'One');
      await eventually(() => h.calls('GET', '/events/stream').length === 2, 3000, 'a reconnection');
      await rename(h, 'Two');
      await rename(h, 'Three');
      await eventually(() => f.signals.length >= 3, 3000, 'three signals');

      const streams = h.calls('GET', '/events/stream');
      assert.equal(streams[0]!.headers.get('last-event-id'), null);
      assert.equal(streams[1]!.headers.get('last-event-id'), f.signals[0]!.id, 'resumed after the last signal received');
      assert.equal(f.signals.length, 3);
      assert.equal(new Set(f.signals.map((s) => s.id)).size, 3);
      assert.ok(f.states.includes('waiting'));
      await f.stop();
    });

    it('resumes from a saved cursor after a restart, and resyncs when the cursor is not valid', async () => {
      const h = clientFor(t);
      await signUp(h, uniqueName('ev'));
      const first = follow(h, { mode: 'stream' });
      await eventually(() => first.states.includes('streaming'), 3000, 'the stream to open');
      await rename(h, 'Before');
      await eventually(() => first.signals.length === 1, 3000, 'the first signal');
      const saved = first.cursors.at(-1)!;
      await first.stop();

      await rename(h, 'While away');
      const second = follow(h, { mode: 'stream', since: saved });
      await eventually(() => second.signals.length === 1, 3000, 'the missed signal');
      assert.equal(second.signals[0]!.kind, 'me.changed');
      assert.notEqual(second.signals[0]!.id, first.signals[0]!.id);
      await second.stop();

      const third = follow(h, { mode: 'stream', since: 'not-a-cursor' });
      await eventually(() => third.resyncs === 1 && third.states.includes('streaming'), 3000, 'a resync');
      await rename(h, 'After resync');
      await eventually(() => third.signals.length === 1, 3000, 'a signal after the resync');
      await third.stop();
    });

    it('falls back to polling GET /events when the stream is not usable, from now on', async () => {
      const h = clientFor(t);
      await signUp(h, uniqueName('ev'));
      // A proxy that answers the stream with something else entirely.
      h.intercept((request) =>
        request.path === '/events/stream' ? new Response('<html>buffered</html>', { status: 200, headers: { 'content-type': 'text/html' } }) : undefined,
      );
      const f = follow(h);
      await eventually(() => f.states.includes('polling') && h.calls('GET', '/events').length > 0, 3000, 'polling');
      assert.equal(h.calls('GET', '/events/stream').length, 1);
      await rename(h, 'Polled');
      await eventually(() => f.signals.length === 1, 3000, 'me.changed by polling');
      assert.equal(f.signals[0]!.kind, 'me.changed', 'older signals (sign-up) are not replayed');
      const since = () => h.calls('GET', '/events').map((e) => new URLSearchParams(e.path.split('?')[1]).get('since'));
      await eventually(() => since().includes(f.signals[0]!.id), 3000, 'a poll after the signal');
      assert.ok(h.calls('GET', '/events').every((e) => e.headers.get('authorization')?.startsWith('DPoP ')));
      await f.stop();
    });
  });
}
