// Several nodes behind a load balancer (docs/deploy.md): two service instances, each with its own
// pool, on one PostgreSQL database and one Redis. Whatever a client does on one node holds on the
// other: an account made on node 1 logs in on node 2, an Idempotency-Key replays across nodes, a
// DPoP proof used on one node is refused on the other, and rate limits are counted together.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { sha256Base64url } from '../../src/platform/crypto/tokens.js';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';
import { startNodes } from '../helpers/nodes.js';
import type { TestCluster, TestNode } from '../helpers/nodes.js';
import { expectProblem } from '../helpers/problem.js';

const postgres = backends.find((b) => b.name === 'postgres')!;
const REDIS_URL = process.env.TEST_REDIS_URL;
const skip = postgres.skip || (REDIS_URL ? false : 'TEST_REDIS_URL is not set');
const ME = '/api/v1/me';

describe('multi-node: two nodes on one PostgreSQL database and one Redis [postgres]', { skip }, () => {
  let cluster: TestCluster;
  let one: TestNode;
  let two: TestNode;
  before(async () => {
    // Production defaults for where shared state lives: with REDIS_URL the replay cache and the
    // counters are in Redis (DPOP_REPLAY_CACHE defaults to redis).
    cluster = await startNodes(postgres, 2, { REDIS_URL: REDIS_URL as string });
    [one, two] = cluster.nodes as [TestNode, TestNode];
  });
  after(() => cluster?.close());

  it('uses Redis for the replay cache, and separate stores on one schema', () => {
    assert.equal(cluster.config.dpop.replayCache, 'redis');
    assert.notEqual(one.store, two.store);
    assert.equal(one.store.handle.schema, two.store.handle.schema);
  });

  it('signs up on node 1, then logs in with the same passkey on node 2 and reads the same identity', async () => {
    const device = await one.client.signUp(uniqueName('multi'));
    const login = await two.client.logIn(device.authenticator);
    assert.equal(login.status, 200, JSON.stringify(login.body));
    const onTwo = await two.client.call('GET', ME, { key: login.key, token: login.body.access_token });
    assert.equal(onTwo.status, 200, JSON.stringify(onTwo.body));
    assert.equal(onTwo.body.id, device.accountId);
    // The tokens node 2 issued work on node 1, and the first session's on node 2.
    const back = await one.client.call('GET', ME, { key: login.key, token: login.body.access_token });
    assert.equal(back.status, 200);
    const first = await two.client.as(device, 'GET', ME);
    assert.equal(first.status, 200);
    assert.equal(first.body.username, device.username);
  });

  it('replays an Idempotency-Key on the other node with the original response, and changes nothing twice', async () => {
    const device = await one.client.signUp(uniqueName('multiidem'));
    const me = await one.client.as(device, 'GET', ME);
    const v = me.body.version as number;
    const key = randomUUID();
    const body = { display_name: 'Made On Node One' };
    const first = await one.client.as(device, 'PATCH', ME, { body, headers: { 'if-match': `"${v}"`, 'idempotency-key': key } });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.headers.get('vid-idempotent-replay'), null);

    const again = await two.client.as(device, 'PATCH', ME, { body, headers: { 'if-match': `"${v}"`, 'idempotency-key': key } });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.headers.get('vid-idempotent-replay'), 'true');
    assert.deepEqual(again.body, first.body);
    assert.equal(again.headers.get('etag'), first.headers.get('etag'));

    const now = await two.client.as(device, 'GET', ME);
    assert.equal(now.body.version, v + 1, 'one change, not two');
  });

  it('refuses on node 2 a DPoP proof that node 1 accepted', async () => {
    const device = await one.client.signUp(uniqueName('multireplay'));
    const proof = await device.key.proof('GET', one.client.publicOrigin + ME, { accessToken: device.tokens.access_token });
    const headers = { dpop: proof };
    const accepted = await one.client.as(device, 'GET', ME, { headers });
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    const replayed = await two.client.as(device, 'GET', ME, { headers });
    expectProblem(replayed, 401, 'invalid_dpop_proof');
    assert.match(replayed.body.detail, /used before/);
    // And the other way round, with a fresh proof first used on node 2.
    const second = await device.key.proof('GET', one.client.publicOrigin + ME, { accessToken: device.tokens.access_token });
    assert.equal((await two.client.as(device, 'GET', ME, { headers: { dpop: second } })).status, 200);
    expectProblem(await one.client.as(device, 'GET', ME, { headers: { dpop: second } }), 401, 'invalid_dpop_proof');
  });

  it('keeps proof ids in Redis only as hashes with an expiry', async () => {
    const redis = new Redis(REDIS_URL as string);
    try {
      const device = await one.client.signUp(uniqueName('multittl'));
      const jti = randomUUID();
      const res = await one.client.as(device, 'GET', ME, { proofOptions: { jti } });
      assert.equal(res.status, 200);
      assert.equal(await redis.exists(`vid:jti:${jti}`), 0, 'the raw jti is never a key');
      const ttl = await redis.pttl(`vid:jti:${sha256Base64url(jti)}`);
      assert.ok(ttl > 0 && ttl <= 70_000, `ttl ${ttl}`);
    } finally {
      redis.disconnect();
    }
  });
});

describe('multi-node: rate limits counted together across nodes through Redis [postgres]', { skip }, () => {
  let cluster: TestCluster;
  let one: TestNode;
  let two: TestNode;
  const LIMIT = 4;
  before(async () => {
    cluster = await startNodes(postgres, 2, { REDIS_URL: REDIS_URL as string, RATE_LIMIT_USER_PER_MIN: String(LIMIT) });
    [one, two] = cluster.nodes as [TestNode, TestNode];
  });
  after(() => cluster?.close());

  it('counts one account\'s requests on both nodes against one limit, and the next one on either node gets 429', async () => {
    // Far from a minute boundary, so all requests fall in one window.
    const minute = 60_000;
    cluster.clock.set(Math.floor(cluster.clock.now() / minute) * minute + 7 * minute + 10_000);
    const device = await one.client.signUp(uniqueName('multirl'));
    const remaining: string[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const node = i % 2 === 0 ? one : two;
      const res = await node.client.as(device, 'GET', ME);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      remaining.push(res.headers.get('ratelimit-remaining')!);
    }
    assert.deepEqual(remaining, ['3', '2', '1', '0'], 'each node sees the other node\'s requests');
    const overOnOne = await one.client.as(device, 'GET', ME);
    expectProblem(overOnOne, 429, 'rate_limited');
    assert.ok(Number(overOnOne.headers.get('retry-after')) > 0);
    expectProblem(await two.client.as(device, 'GET', ME), 429, 'rate_limited');
    // Another account is not affected.
    const other = await two.client.signUp(uniqueName('multirl'));
    assert.equal((await one.client.as(other, 'GET', ME)).status, 200);
  });

  it('shares the monthly quota counter too (Quota-Remaining continues across nodes)', async () => {
    cluster.clock.advance(2 * 60_000);
    const device = await two.client.signUp(uniqueName('multiquota'));
    const a = await two.client.as(device, 'GET', ME);
    const b = await one.client.as(device, 'GET', ME);
    assert.equal(a.status, 200);
    assert.equal(b.status, 200);
    assert.equal(Number(a.headers.get('quota-remaining')) - 1, Number(b.headers.get('quota-remaining')));
  });
});
