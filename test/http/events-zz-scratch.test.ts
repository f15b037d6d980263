import assert from 'node:assert/strict';
import { it } from 'node:test';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';
import { openSse, openWs, startNodes } from '../helpers/nodes.js';
it('inflight', async () => {
  const cluster = await startNodes(backends[0]!, 1, { SHED_MAX_IN_FLIGHT: '4' });
  const node = cluster.nodes[0]!;
  const device = await node.client.signUp(uniqueName('x'));
  for (let i = 0; i < 5; i++) { const w = await openWs(node.client, device); assert.ok(w.ok); w.ws.close(); await w.ws.waitForClose(); }
  const me = await node.client.as(device, 'GET', '/api/v1/me');
  console.log('after 5 closed websockets: GET /me ->', me.status);
  const s = [];
  for (let i = 0; i < 3; i++) s.push(await openSse(node.client, device));
  const me2 = await node.client.as(device, 'GET', '/api/v1/me');
  console.log('with 3 open SSE: GET /me ->', me2.status);
  for (const x of s) x.close();
  await cluster.close();
});
