// Redis goes away under two nodes (issue: every request hung up to 20 s and answered 500 while
// /health/ready said 200). Redis refusing connections, then hanging without an answer: both nodes
// answer every request in time and never 500, counting limits in their own memory and checking
// DPoP proof ids in the database (a proof used on one node is still refused on the other); once
// Redis is back they share it again, and a proof used during the outage stays refused. The shared
// Redis is never stopped: the nodes reach it through a relay the test cuts.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { sha256Base64url } from '../../src/platform/crypto/tokens.js';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';
import type { Device } from '../helpers/client.js';
import { startNodes } from '../helpers/nodes.js';
import type { TestCluster, TestNode } from '../helpers/nodes.js';
import { expectProblem } from '../helpers/problem.js';
import { startOutageRelay, throughRelay } from '../helpers/tcp-outage.js';
import type { Outage } from '../helpers/tcp-outage.js';

const postgres = backends.find((b) => b.name === 'postgres')!;
const REDIS_URL = process.env.TEST_REDIS_URL;
const skip = postgres.skip || (REDIS_URL ? false : 'TEST_REDIS_URL is not set');
const ME = '/api/v1/me';

describe('Redis goes away under two nodes [postgres]', { skip }, () => {
  let relay: Outage;
  let cluster: TestCluster;
  let nodes: TestNode[];
  let device: Device;

  before(async () => {
    const url = new URL(REDIS_URL as string);
    relay = await startOutageRelay({ host: url.hostname, port: Number(url.port || 6379) });
    // The production command timeout: a hung Redis costs a request tens of milliseconds.
    cluster = await startNodes(postgres, 2, { REDIS_URL: throughRelay(url.toString(), relay), REDIS_COMMAND_TIMEOUT_MS: '50', REDIS_BREAKER_OPEN_MS: '200' });
    nodes = cluster.nodes;
    device = await nodes[0]!.client.signUp(uniqueName('redisout'));
  });
  after(async () => {
    await cluster?.close();
    await relay?.close();
  });

  /** How long the slowest of a load's requests took with Redis up (the machine's own pace). */
  let baseline = 0;

  /** Requests spread over both nodes, authenticated and public; every one 200 within `maxMs`; answers the slowest's time. */
  async function load(rounds: number, maxMs = 2 * baseline + 500): Promise<number> {
    const slowest = { ms: 0, what: '' };
    const results = await Promise.all(
      Array.from({ length: rounds }, async (_, i) => {
        const node = nodes[i % 2]!;
        const started = Date.now();
        const res = i % 3 === 0 ? await node.client.call('GET', '/api/v1/field-types') : await node.client.as(device, 'GET', ME);
        const ms = Date.now() - started;
        if (ms > slowest.ms) Object.assign(slowest, { ms, what: `request ${i}` });
        return res;
      }),
    );
    for (const res of results) assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.ok(slowest.ms < maxMs, `${slowest.what} took ${slowest.ms} ms, with Redis up ${baseline} ms`);
    return slowest.ms;
  }

  /** A proof accepted on node 1 and replayed on node 2 is refused. */
  async function replayRefused(): Promise<void> {
    const [one, two] = nodes as [TestNode, TestNode];
    const proof = await device.key.proof('GET', one.client.publicOrigin + ME, { accessToken: device.tokens.access_token });
    assert.equal((await one.client.as(device, 'GET', ME, { headers: { dpop: proof } })).status, 200);
    expectProblem(await two.client.as(device, 'GET', ME, { headers: { dpop: proof } }), 401, 'invalid_dpop_proof');
  }

  /** Whether both nodes write proof ids to Redis: a request on each with a known jti leaves its key there. */
  async function bothUseRedis(): Promise<boolean> {
    const direct = new Redis(REDIS_URL as string);
    try {
      for (const node of nodes) {
        const jti = randomUUID();
        assert.equal((await node.client.as(device, 'GET', ME, { proofOptions: { jti } })).status, 200);
        if (!(await direct.exists(`vid:jti:${sha256Base64url(jti)}`))) return false;
      }
      return true;
    } finally {
      direct.disconnect();
    }
  }

  it('serves every request in time while Redis refuses connections, and still refuses a replayed proof', async () => {
    await load(6, 5000);
    baseline = await load(40, 10_000);
    relay.cut();
    await load(40);
    await replayRefused();
    for (const node of nodes) assert.equal((await fetch(`${node.baseUrl}/health/ready`)).status, 200, 'Redis is not a readiness dependency');
  });

  it('serves every request in time while Redis accepts connections and never answers', async () => {
    relay.hang();
    await load(40);
    await replayRefused();
  });

  it('shares Redis again once it answers, and a proof used during the outage stays refused', async () => {
    relay.cut();
    const [one, two] = nodes as [TestNode, TestNode];
    const proof = await device.key.proof('GET', one.client.publicOrigin + ME, { accessToken: device.tokens.access_token });
    assert.equal((await one.client.as(device, 'GET', ME, { headers: { dpop: proof } })).status, 200);
    relay.restore();
    // Both nodes reconnect (ioredis retries within 2 s) and their breakers close on the next probe.
    const deadline = Date.now() + 6000;
    while (!(await bothUseRedis()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    assert.ok(await bothUseRedis(), 'both nodes write proof ids to Redis again');
    expectProblem(await two.client.as(device, 'GET', ME, { headers: { dpop: proof } }), 401, 'invalid_dpop_proof');
    await replayRefused();
  });
});
