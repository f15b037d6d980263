// GET /events/stream (PRODUCT §7; STANDARDS "Server-Sent Events"; RFC 6455 for the WebSocket):
// live delivery, resume with Last-Event-ID, equivalence with polling, revocation, limits, auth.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';
import type { Device } from '../helpers/client.js';
import { openSse, openWs, startNodes, STREAM_PATH } from '../helpers/nodes.js';
import type { SseClient, TestCluster, TestNode } from '../helpers/nodes.js';
import { signal } from '../../src/platform/signals/signal.js';
import { signalLog } from '../../src/platform/signals/log.js';

const EVENTS = '/api/v1/events';

for (const backend of backends) {
  describe(`signals: GET /events/stream, SSE and WebSocket [${backend.name}]`, { skip: backend.skip }, () => {
    let cluster: TestCluster;
    let node: TestNode;
    const open: SseClient[] = [];
    before(async () => {
      cluster = await startNodes(backend, 1, { EVENTS_HEARTBEAT_S: '0.1', EVENTS_MAX_STREAMS_PER_ACCOUNT: '3' });
      node = cluster.nodes[0]!;
    });
    after(async () => {
      for (const stream of open) stream.close();
      await cluster.close();
    });

    const sse = async (device: Device, options: Parameters<typeof openSse>[2] = {}) => {
      const stream = await openSse(node.client, device, options);
      open.push(stream);
      return stream;
    };
    const signUp = (prefix: string) => node.client.signUp(uniqueName(prefix));
    const emit = (device: Device, count = 1, kind: 'fields.changed' | 'me.changed' = 'fields.changed') =>
      cluster.store.transaction(async (tx) => {
        for (let i = 0; i < count; i++) await signal(tx, device.accountId, kind);
      });
    async function rename(device: Device, name: string): Promise<void> {
      const me = await node.client.as(device, 'GET', '/api/v1/me');
      const res = await node.client.as(device, 'PATCH', '/api/v1/me', { body: { display_name: name }, headers: { 'if-match': me.headers.get('etag')! } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    }
    const seqOf = (id: string) => Number(Buffer.from(id, 'base64url').toString().split('.')[1]);

    it('streams text/event-stream with anti-buffering headers, a retry hint and the starting id, then live signals', async () => {
      const device = await signUp('sse');
      const stream = await sse(device);
      assert.equal(stream.status, 200);
      assert.match(String(stream.headers['content-type']), /^text\/event-stream/);
      assert.match(String(stream.headers['cache-control']), /no-cache/);
      assert.equal(stream.headers['x-accel-buffering'], 'no');
      assert.equal(stream.headers['content-encoding'], undefined);
      assert.ok(stream.headers['vid-request-id']);
      await stream.waitForComment('heartbeat');
      const opening = stream.blocks[0]!;
      assert.equal(opening.retry, 2000);
      assert.equal(opening.data, undefined);
      const poll = await node.client.as(device, 'GET', EVENTS);
      assert.equal(opening.id, poll.body.next_cursor, 'a new stream starts at the newest position');

      const sent = Date.now();
      await rename(device, 'Live');
      const [signal] = await stream.waitForSignals(1, 1000);
      assert.ok(Date.now() - sent < 1000);
      assert.equal(signal!.kind, 'me.changed');
      assert.equal(signal!.resource, '/me');
      const block = stream.blocks.find((b) => b.data !== undefined)!;
      assert.equal(block.id, signal!.id);
      assert.equal(block.event, 'me.changed');
    });

    it('sends a heartbeat comment on the configured interval (15 s by default)', async () => {
      const device = await signUp('beat');
      const stream = await sse(device);
      await stream.waitForComment('heartbeat', 1000);
      const before = stream.comments.length;
      await sleep(600);
      assert.ok(stream.comments.length >= before + 2, `heartbeats: ${stream.comments.length - before}`);
      assert.equal(cluster.config.events.heartbeatMs, 100);
    });

    it('resumes after a disconnect with Last-Event-ID: exactly once, in order, nothing missed', async () => {
      const device = await signUp('resume');
      const first = await sse(device);
      await emit(device, 5);
      const got = await first.waitForSignals(5);
      first.close();
      await emit(device, 4); // while disconnected
      const resumed = await sse(device, { lastEventId: got[4]!.id });
      await resumed.waitForSignals(4);
      await emit(device, 2, 'me.changed'); // live again
      const after = await resumed.waitForSignals(6);
      const seqs = [...got, ...after].map((s) => seqOf(s.id));
      const firstSeq = seqs[0]!;
      assert.deepEqual(seqs, Array.from({ length: 11 }, (_, i) => firstSeq + i));
      await sleep(100);
      assert.equal(resumed.signals.length, 6, 'no repeats');

      // Last-Event-ID wins over ?since (EventSource resends its first URL); an older id replays from there.
      const replay = await sse(device, { lastEventId: got[1]!.id, since: got[4]!.id });
      const replayed = await replay.waitForSignals(9);
      assert.deepEqual(replayed.map((s) => seqOf(s.id)), seqs.slice(2));
      const viaSince = await sse(device, { since: after[5]!.id });
      await emit(device, 1);
      const [next] = await viaSince.waitForSignals(1);
      assert.equal(seqOf(next!.id), seqs[10]! + 1);
      for (const s of [resumed, replay, viaSince]) s.close();
    });

    it('yields the same signals as polling', async () => {
      const device = await signUp('equiv');
      const start = (await node.client.as(device, 'GET', EVENTS)).body.next_cursor;
      const stream = await sse(device, { since: start });
      await rename(device, 'one');
      await emit(device, 3);
      const second = await node.client.logIn(device.authenticator);
      await node.client.call('DELETE', `/api/v1/auth/sessions/${second.body.session_id}`, { key: device.key, token: device.tokens.access_token });
      const polled = await node.client.as(device, 'GET', `${EVENTS}?since=${start}`);
      assert.equal(polled.body.data.length, 6);
      const streamed = await stream.waitForSignals(6);
      assert.deepEqual(streamed, polled.body.data);
      const ws = await openWs(node.client, device, { since: start });
      assert.ok(ws.ok);
      assert.deepEqual(await ws.ws.waitForSignals(6), polled.body.data);
      ws.ws.close();
      stream.close();
    });

    it('closes the stream of a revoked session at once, and only that one', async () => {
      const device = await signUp('revoke');
      const login = await node.client.logIn(device.authenticator);
      const other: Device = { ...device, key: login.key, tokens: login.body };
      const mine = await sse(device);
      const theirs = await sse(other);
      const ws = await openWs(node.client, other);
      assert.ok(ws.ok);
      await mine.waitForComment('heartbeat');
      const started = Date.now();
      const res = await node.client.as(device, 'DELETE', `/api/v1/auth/sessions/${other.tokens.session_id}`);
      assert.equal(res.status, 204);
      await theirs.waitForEnd(1000);
      assert.equal(await ws.ws.waitForClose(1000), 4403);
      assert.equal(ws.ws.closeReason, 'session_revoked');
      assert.ok(Date.now() - started < 1000);
      assert.ok(theirs.comments.includes('closed revoked'));
      assert.deepEqual(theirs.signals, [], 'nothing is sent after the revocation');
      const [signal] = await mine.waitForSignals(1);
      assert.equal(signal!.kind, 'sessions.changed');
      assert.equal(mine.ended, false);
      // And the revoked token cannot open another.
      const again = await node.client.call('GET', STREAM_PATH, { key: other.key, token: other.tokens.access_token });
      assert.equal(again.status, 401);
      mine.close();
    });

    it('closes a stream when its access token expires; the renewed token resumes without a gap', async () => {
      const device = await signUp('expiry');
      const stream = await sse(device);
      await emit(device, 1);
      const [first] = await stream.waitForSignals(1);
      cluster.clock.advance(cluster.config.tokens.accessTtlSeconds * 1000);
      await stream.waitForEnd(1000);
      assert.ok(stream.comments.includes('closed expired'));
      await emit(device, 2);
      const renew = await node.client.call('POST', '/api/v1/auth/token/renew', { body: { refresh_token: device.tokens.refresh_token }, key: device.key });
      device.tokens = renew.body;
      const resumed = await sse(device, { lastEventId: first!.id });
      assert.equal((await resumed.waitForSignals(2)).length, 2);
      resumed.close();
    });

    it('refuses a stream without a valid proof or token (401) and bad cursors (400 / 410) before streaming', async () => {
      const device = await signUp('refuse');
      const other = await signUp('refuse-other');
      const noProof = await sse(device, { noProof: true });
      assert.equal(noProof.status, 401);
      assert.match(String(noProof.headers['www-authenticate']), /^DPoP /);
      const noToken = await sse(device, { noToken: true });
      assert.equal(noToken.status, 401);
      const wrongKey = await node.client.call('GET', STREAM_PATH, { key: other.key, token: device.tokens.access_token });
      assert.equal(wrongKey.status, 401);
      // A proof for another URL does not open the stream either.
      const elsewhere = await node.client.call('GET', STREAM_PATH, {
        key: device.key,
        token: device.tokens.access_token,
        headers: { dpop: await device.key.proof('GET', `${node.client.publicOrigin}${EVENTS}`, { accessToken: device.tokens.access_token }) },
      });
      assert.equal(elsewhere.status, 401);

      const bad = await node.client.call('GET', `${STREAM_PATH}?since=nope`, { key: device.key, token: device.tokens.access_token });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.code, 'invalid_cursor');
      await emit(other, 1);
      const foreignId = (await node.client.as(other, 'GET', EVENTS)).body.data[0].id;
      const foreign = await node.client.call('GET', STREAM_PATH, { key: device.key, token: device.tokens.access_token, headers: { 'last-event-id': foreignId } });
      assert.equal(foreign.status, 400);
      assert.equal(foreign.body.code, 'invalid_cursor');
      assert.equal(foreign.body.detail, bad.body.detail);

      const start = (await node.client.as(device, 'GET', EVENTS)).body.next_cursor;
      await emit(device, 1);
      cluster.clock.advance(31 * 24 * 3600 * 1000);
      await cluster.store.use(signalLog).prune(cluster.clock.now() - 30 * 24 * 3600 * 1000);
      const renew = await node.client.call('POST', '/api/v1/auth/token/renew', { body: { refresh_token: device.tokens.refresh_token }, key: device.key });
      assert.equal(renew.status, 401, 'the refresh token expired with the jump too');
      const login = await node.client.logIn(device.authenticator);
      const fresh: Device = { ...device, key: login.key, tokens: login.body };
      const expired = await node.client.call('GET', `${STREAM_PATH}?since=${start}`, { key: fresh.key, token: fresh.tokens.access_token });
      assert.equal(expired.status, 410);
      assert.equal(expired.body.code, 'cursor_expired');
      const ws = await openWs(node.client, fresh, { since: start });
      assert.ok(!ws.ok && ws.status === 410);
    });

    it('limits concurrent streams per account; a device at the limit replaces its own oldest stream', async () => {
      const device = await signUp('limit');
      const login = await node.client.logIn(device.authenticator);
      const other: Device = { ...device, key: login.key, tokens: login.body };
      const a = await sse(device);
      const b = await sse(device);
      const c = await sse(device);
      for (const s of [a, b, c]) assert.equal(s.status, 200);
      const refused = await node.client.call('GET', STREAM_PATH, { key: other.key, token: other.tokens.access_token });
      assert.equal(refused.status, 429);
      assert.equal(refused.body.code, 'too_many_streams');
      assert.ok(refused.headers.get('retry-after'));
      const wsRefused = await openWs(node.client, other);
      assert.ok(!wsRefused.ok && wsRefused.status === 429);

      const d = await sse(device); // same session: its oldest stream (a) goes
      assert.equal(d.status, 200);
      await a.waitForEnd(1000);
      assert.ok(a.comments.includes('closed replaced'));
      b.close();
      await sleep(50);
      const now = await sse(other);
      assert.equal(now.status, 200);
      for (const s of [c, d, now]) s.close();
    });

    it('WebSocket with Authorization and DPoP headers: ready frame, signals, resume with since', async () => {
      const device = await signUp('ws');
      const opened = await openWs(node.client, device);
      assert.ok(opened.ok);
      await sleep(20);
      const ready = opened.ws.frames[0];
      assert.equal(ready.type, 'ready');
      const poll = await node.client.as(device, 'GET', EVENTS);
      assert.equal(ready.cursor, poll.body.next_cursor);
      await rename(device, 'Socket');
      const [signal] = await opened.ws.waitForSignals(1, 1000);
      assert.equal(signal!.kind, 'me.changed');
      opened.ws.close();
      await emit(device, 2);
      const resumed = await openWs(node.client, device, { since: signal!.id });
      assert.ok(resumed.ok);
      const again = await resumed.ws.waitForSignals(2);
      assert.deepEqual(again.map((s) => seqOf(s.id)), [seqOf(signal!.id) + 1, seqOf(signal!.id) + 2]);
      resumed.ws.close();
    });

    it('WebSocket from a browser: token and proof as subprotocols, the server selects vid.events.v1', async () => {
      const device = await signUp('wsb');
      const opened = await openWs(node.client, device, { via: 'subprotocols' });
      assert.ok(opened.ok);
      assert.equal(opened.protocol, 'vid.events.v1');
      await emit(device, 1);
      assert.equal((await opened.ws.waitForSignals(1)).length, 1);
      opened.ws.close();

      const withoutProof = await openWs(node.client, device, { via: 'subprotocols', protocols: ['vid.events.v1', `vid.auth.${device.tokens.access_token}`] });
      assert.ok(!withoutProof.ok);
      assert.equal(withoutProof.status, 401);
      assert.match(withoutProof.body, /invalid_dpop_proof/);
      // A proof is single-use (RFC 9449 §11.1), whichever way it travels.
      const proof = await device.key.proof('GET', node.client.publicOrigin + STREAM_PATH, { accessToken: device.tokens.access_token });
      const protocols = ['vid.events.v1', `vid.auth.${device.tokens.access_token}`, `vid.dpop.${proof}`];
      const once = await openWs(node.client, device, { via: 'subprotocols', protocols });
      assert.ok(once.ok);
      const twice = await openWs(node.client, device, { via: 'subprotocols', protocols });
      assert.ok(!twice.ok && twice.status === 401);
      once.ws.close();
    });

    it('refuses a WebSocket handshake without credentials with 401 and a problem document', async () => {
      const device = await signUp('wsno');
      const res = await openWs(node.client, device, { noProof: true, noToken: true });
      assert.ok(!res.ok);
      assert.equal(res.status, 401);
      assert.equal(JSON.parse(res.body).code, 'unauthenticated');
    });
  });
}
