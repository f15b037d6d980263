// One Redis round trip per authenticated request (decision 350). GET /api/v1/me on two nodes that
// share PostgreSQL and Redis (and on one SQLite node with Redis: what a request asks of Redis does
// not depend on the database) spends its DPoP proof id, its rate limit and its quota in one script
// call, and the refusals keep their order: a replayed proof counts nothing, a request past the
// minute limit does not count against the quota. Counted in the nodes' own clients: every command
// they send, and the round trips those take (commands sent in one turn of the event loop travel
// together; a command sent after one's answer is another trip).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { backends } from '../helpers/backends.js';
import type { TestBackend } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';
import { startNodes } from '../helpers/nodes.js';
import type { TestCluster, TestNode } from '../helpers/nodes.js';
import { expectProblem } from '../helpers/problem.js';

const REDIS_URL = process.env.TEST_REDIS_URL;
const ME = '/api/v1/me';
const MINUTE = 60_000;

interface RedisTally {
  commands: string[];
  roundTrips: number;
}

/** Counts what every ioredis client of this process sends until `stop`. */
function tallyRedis(): { stop(): RedisTally } {
  const prototype = Redis.prototype as unknown as { sendCommand(command: { name: string }, stream?: unknown): unknown };
  const send = prototype.sendCommand;
  const tally: RedisTally = { commands: [], roundTrips: 0 };
  let inTurn = false;
  prototype.sendCommand = function (this: unknown, command, stream) {
    tally.commands.push(command.name);
    if (!inTurn) {
      inTurn = true;
      tally.roundTrips++;
      setImmediate(() => {
        inTurn = false;
      });
    }
    return send.call(this, command, stream);
  };
  return {
    stop() {
      prototype.sendCommand = send;
      return tally;
    },
  };
}

/**
 * The ioredis clients this process makes from now on, and a wait until they are connected: a
 * request that comes before opens the breaker (decision 260), and for one acceptance window after
 * that the proof id goes to Redis and the database one call at a time, by design.
 */
function watchRedisClients(): { connected(): Promise<void>; stop(): void } {
  const prototype = Redis.prototype as unknown as { connect(...args: unknown[]): Promise<void> };
  const connect = prototype.connect;
  const clients = new Set<Redis>();
  prototype.connect = function (this: Redis, ...args) {
    clients.add(this);
    return connect.apply(this, args);
  };
  return {
    async connected() {
      await Promise.all([...clients].map((client) => (client.status === 'ready' ? undefined : once(client, 'ready', { signal: AbortSignal.timeout(10_000) }))));
    },
    stop() {
      prototype.connect = connect;
    },
  };
}

/** Far from a minute's end, so a test's requests share one window. */
function startOfQuietMinute(cluster: TestCluster): void {
  cluster.clock.set(Math.floor(cluster.clock.now() / MINUTE) * MINUTE + 3 * MINUTE + 5_000);
}

function suite(backend: TestBackend, nodeCount: number): void {
  const skip = backend.skip || (REDIS_URL ? false : 'TEST_REDIS_URL is not set');
  describe(`Redis round trips of an authenticated request, ${nodeCount} node(s) [${backend.name}]`, { skip }, () => {
    const LIMIT = 12;
    let cluster: TestCluster;
    let nodes: TestNode[];
    before(async () => {
      const clients = watchRedisClients();
      try {
        const env = { REDIS_URL: REDIS_URL as string, RATE_LIMIT_USER_PER_MIN: String(LIMIT) };
        cluster = await startNodes(backend, nodeCount, env, { beforeFirstRequest: () => clients.connected() });
      } finally {
        clients.stop();
      }
      nodes = cluster.nodes;
    });
    after(() => cluster?.close());

    it('spends the proof id, the rate limit and the quota of GET /me in one command, one round trip', async (t) => {
      startOfQuietMinute(cluster);
      const device = await nodes[0]!.client.signUp(uniqueName('trips'));
      const requests = 10;
      const tally = tallyRedis();
      const remaining: number[] = [];
      let tallied: RedisTally;
      try {
        for (let i = 0; i < requests; i++) {
          const res = await nodes[i % nodes.length]!.client.as(device, 'GET', ME);
          assert.equal(res.status, 200, JSON.stringify(res.body));
          remaining.push(Number(res.headers.get('ratelimit-remaining')));
        }
      } finally {
        tallied = tally.stop();
      }
      const { commands, roundTrips } = tallied;
      t.diagnostic(`per GET /me: ${commands.length / requests} Redis commands sent (${[...new Set(commands)].join(', ')}), ${roundTrips / requests} round trips`);
      assert.deepEqual(commands, Array(requests).fill('evalsha'), 'one script call a request');
      assert.equal(roundTrips, requests, 'one round trip a request');
      assert.deepEqual(remaining, Array.from({ length: requests }, (_, i) => LIMIT - 1 - i), 'every node counts in the same window');
    });

    it('counts nothing for a replayed proof, and nothing against the quota past the minute limit', async () => {
      cluster.clock.advance(2 * MINUTE);
      const [one, two] = [nodes[0]!, nodes[nodes.length - 1]!];
      const device = await one.client.signUp(uniqueName('tripsorder'));
      const proof = await device.key.proof('GET', one.client.publicOrigin + ME, { accessToken: device.tokens.access_token });
      const first = await one.client.as(device, 'GET', ME, { headers: { dpop: proof } });
      assert.equal(first.status, 200);
      expectProblem(await two.client.as(device, 'GET', ME, { headers: { dpop: proof } }), 401, 'invalid_dpop_proof');
      const next = await two.client.as(device, 'GET', ME);
      assert.equal(Number(next.headers.get('ratelimit-remaining')), Number(first.headers.get('ratelimit-remaining')) - 1, 'the replay spent no request');
      assert.equal(Number(next.headers.get('quota-remaining')), Number(first.headers.get('quota-remaining')) - 1, 'nor any quota');

      // Requests 3 to LIMIT - 1 here, the LIMIT-th on the other node: the next is one too many.
      for (let i = 3; i < LIMIT; i++) assert.equal((await one.client.as(device, 'GET', ME)).status, 200);
      const quotaBefore = Number((await two.client.as(device, 'GET', ME)).headers.get('quota-remaining'));
      const over = await one.client.as(device, 'GET', ME);
      expectProblem(over, 429, 'rate_limited');
      assert.equal(over.headers.get('ratelimit-remaining'), '0');
      assert.ok(Number(over.headers.get('retry-after')) > 0);
      assert.equal(over.headers.get('quota-remaining'), null, 'the quota is not counted past the minute limit');
      cluster.clock.advance(MINUTE);
      const later = await two.client.as(device, 'GET', ME);
      assert.equal(later.status, 200);
      assert.equal(Number(later.headers.get('quota-remaining')), quotaBefore - 1, 'the refused request spent no quota');
    });
  });
}

suite(backends.find((b) => b.name === 'postgres')!, 2);
suite(backends.find((b) => b.name === 'sqlite')!, 1);
