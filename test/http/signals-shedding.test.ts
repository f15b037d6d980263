import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';
import { openSse, openWs } from '../helpers/nodes.js';

for (const backend of backends) {
  describe(`signals: streams and load shedding [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend, { SHED_MAX_IN_FLIGHT: '2' });
    });
    after(() => t.close());

    it('open SSE and WebSocket streams do not count as requests in flight', async () => {
      const device = await t.client.signUp(uniqueName('shed'));
      const streams = [];
      for (let i = 0; i < 3; i++) {
        const sse = await openSse(t.client, device);
        assert.equal(sse.status, 200);
        streams.push(sse);
      }
      const sockets = [];
      for (let i = 0; i < 3; i++) {
        const opened = await openWs(t.client, device);
        assert.ok(opened.ok, JSON.stringify(opened));
        sockets.push(opened.ws);
      }
      // With six streams open and a cap of two requests in flight, ordinary calls still pass.
      for (let i = 0; i < 3; i++) assert.equal((await t.client.as(device, 'GET', '/api/v1/me')).status, 200);
      for (const s of streams) s.close();
      for (const w of sockets) w.close();
    });
  });
}
