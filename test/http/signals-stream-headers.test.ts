// PRODUCT §0 on GET /events/stream: every response carries VID-Request-Id and VID-API-Version,
// and a response counted against a limit carries RateLimit-* (and, authenticated, Quota-*): the
// WebSocket's 101 Switching Protocols as much as the SSE 200 and the refusals of the handshake.
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { WebSocket } from 'ws';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';
import type { Device } from '../helpers/client.js';

const STREAM = '/api/v1/events/stream';
const RATE_LIMIT = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'ratelimit-policy', 'ratelimit'];
const QUOTA = ['quota-limit', 'quota-remaining', 'quota-reset'];

for (const backend of backends) {
  describe(`signals: the stream's response headers [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend);
    });
    after(() => t.close());

    async function credentials(device: Device): Promise<Record<string, string>> {
      const proof = await device.key.proof('GET', t.client.publicOrigin + STREAM, { accessToken: device.tokens.access_token });
      return { authorization: `DPoP ${device.tokens.access_token}`, dpop: proof };
    }

    /** Opens a WebSocket; answers the status and headers of the handshake's answer (101, or the refusal). */
    function handshake(headers: Record<string, string>): Promise<{ status: number; headers: IncomingHttpHeaders; socket?: WebSocket }> {
      const socket = new WebSocket(`${t.baseUrl.replace(/^http/, 'ws')}${STREAM}`, ['vid.events.v1'], { headers });
      return new Promise((resolve, reject) => {
        socket.once('upgrade', (response: IncomingMessage) => resolve({ status: response.statusCode ?? 0, headers: response.headers, socket }));
        socket.once('unexpected-response', (_request, response: IncomingMessage) => {
          response.resume();
          resolve({ status: response.statusCode ?? 0, headers: response.headers });
        });
        socket.once('error', reject);
      });
    }

    it('the 101 carries VID-Request-Id (the client\'s own when it sent one), VID-API-Version, RateLimit-* and Quota-*', async () => {
      const device = await t.client.signUp(uniqueName('wshead'));
      const opened = await handshake(await credentials(device));
      try {
        assert.equal(opened.status, 101);
        assert.equal(typeof opened.headers['vid-request-id'], 'string', '101 without VID-Request-Id');
        assert.match(String(opened.headers['vid-request-id']), /^[A-Za-z0-9._-]{8,64}$/);
        assert.equal(opened.headers['vid-api-version'], t.config.apiVersion);
        for (const name of [...RATE_LIMIT, ...QUOTA]) assert.ok(opened.headers[name] !== undefined, `101 without ${name}`);
        assert.match(String(opened.headers['ratelimit-policy']), /^"user";q=\d+;w=60$/);
        assert.equal(opened.headers['sec-websocket-protocol'], 'vid.events.v1');
      } finally {
        opened.socket?.close();
      }

      const mine = await handshake({ ...(await credentials(device)), 'vid-request-id': 'client-chosen-id-123' });
      try {
        assert.equal(mine.status, 101);
        assert.equal(mine.headers['vid-request-id'], 'client-chosen-id-123');
      } finally {
        mine.socket?.close();
      }
    });

    it('each 101 counts against the limit: RateLimit-Remaining goes down', async () => {
      const device = await t.client.signUp(uniqueName('wscount'));
      const first = await handshake(await credentials(device));
      first.socket?.close();
      const second = await handshake(await credentials(device));
      second.socket?.close();
      for (const name of ['ratelimit-remaining', 'quota-remaining']) assert.match(String(first.headers[name]), /^\d+$/, `101 without ${name}`);
      assert.equal(Number(second.headers['ratelimit-remaining']), Number(first.headers['ratelimit-remaining']) - 1);
      assert.equal(Number(second.headers['quota-remaining']), Number(first.headers['quota-remaining']) - 1);
    });

    it('a refused handshake and the SSE answer carry them too', async () => {
      const device = await t.client.signUp(uniqueName('wsref'));
      const refused = await handshake({ ...(await credentials(device)), 'last-event-id': 'not-a-cursor' });
      assert.equal(refused.status, 400);
      assert.ok(refused.headers['vid-request-id']);
      assert.equal(refused.headers['vid-api-version'], t.config.apiVersion);
      for (const name of RATE_LIMIT) assert.ok(refused.headers[name] !== undefined, `400 without ${name}`);

      const controller = new AbortController();
      const sse = await fetch(`${t.baseUrl}${STREAM}`, { headers: { accept: 'text/event-stream', ...(await credentials(device)) }, signal: controller.signal });
      try {
        assert.equal(sse.status, 200);
        assert.ok(sse.headers.get('vid-request-id'));
        assert.equal(sse.headers.get('vid-api-version'), t.config.apiVersion);
        for (const name of [...RATE_LIMIT, ...QUOTA]) assert.ok(sse.headers.get(name) !== null, `SSE 200 without ${name}`);
      } finally {
        controller.abort();
      }
    });
  });
}
