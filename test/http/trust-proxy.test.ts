// TRUST_PROXY (docs/deploy.md, Client addresses): behind one balancer that appends the client's
// address to X-Forwarded-For, nodes started with TRUST_PROXY=1 count the address the balancer
// saw, never one the client wrote: a client cannot dodge a per-address limit by writing new
// addresses, nor get someone else refused by writing theirs. Two nodes share the counts (Redis).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.js';
import { TestClient, uniqueName } from '../helpers/client.js';
import { issueCode, redeemOk, RELAXED_JOIN_LIMITS } from '../helpers/join.js';
import type { Device } from '../helpers/client.js';
import { requestFrom, startBalancer } from '../helpers/balancer.js';
import type { Balancer } from '../helpers/balancer.js';
import { startNodes } from '../helpers/nodes.js';
import type { TestCluster } from '../helpers/nodes.js';
import { PUBLIC_ORIGIN } from '../helpers/app.js';

const LIMIT = 5;
/** A loopback address of this run's own (the counters in Redis outlive a run): one client of many. */
const loopback = () => `127.${1 + Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
const ME = '/api/v1/me';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

for (const backend of backends) {
  describe(`TRUST_PROXY=1 behind a one-hop balancer [${backend.name}]`, { skip: backend.skip }, () => {
    let cluster: TestCluster;
    let balancer: Balancer;
    before(async () => {
      const several = backend.name === 'postgres';
      cluster = await startNodes(backend, several ? 2 : 1, {
        ...RELAXED_JOIN_LIMITS,
        TRUST_PROXY: '1',
        AUTH_FAILURES_PER_CLIENT_PER_MIN: String(LIMIT),
        ...(several ? { REDIS_URL } : {}),
      });
      balancer = await startBalancer(cluster.nodes.map((node) => node.baseUrl));
    });
    after(async () => {
      await balancer.close();
      await cluster.close();
    });

    const badToken = (from: string, forwardedFor: string) =>
      requestFrom(from, balancer.url + ME, { headers: { authorization: 'DPoP not-a-token', dpop: 'not.a.proof', 'x-forwarded-for': forwardedFor } });

    async function me(device: Device, from: string) {
      const proof = await device.key.proof('GET', PUBLIC_ORIGIN + ME, { accessToken: device.tokens.access_token });
      return requestFrom(from, balancer.url + ME, { headers: { authorization: `DPoP ${device.tokens.access_token}`, dpop: proof } });
    }

    it('a client that writes a new X-Forwarded-For each time is still one address: refused past the limit', async () => {
      const mallory = loopback();
      const statuses: number[] = [];
      for (let i = 0; i < LIMIT + 3; i++) statuses.push((await badToken(mallory, `203.0.113.${i + 1}`)).status);
      assert.deepEqual(statuses.slice(0, LIMIT), Array(LIMIT).fill(401), 'the first failures are answered');
      assert.deepEqual(statuses.slice(LIMIT), [429, 429, 429], 'then the address is refused, whatever it writes');
    });

    it('a client that writes someone else\'s address gets itself refused, never them', async () => {
      const victim = await cluster.nodes[0]!.client.signUp(uniqueName('victim'));
      const [mallory, victimAddress] = [loopback(), loopback()];
      for (let i = 0; i < LIMIT + 2; i++) await badToken(mallory, victimAddress);
      assert.equal((await badToken(mallory, victimAddress)).status, 429);
      const answer = await me(victim, victimAddress);
      assert.equal(answer.status, 200, answer.body);
    });

    it('what a node records of a client is the address the balancer saw, not the one the client wrote', async () => {
      const phone = await cluster.nodes[0]!.client.signUp(uniqueName('seen'));
      const { code } = await issueCode(cluster.nodes[0]!.client, phone);
      // The new device reaches the service through the balancer (from 127.0.0.1), claiming to be elsewhere.
      const throughBalancer = new TestClient(balancer.url, PUBLIC_ORIGIN, { check() {} }, cluster.clock.now);
      await redeemOk(throughBalancer, phone.username, code, { headers: { 'x-forwarded-for': '81.2.69.142' } });
      const pending = await cluster.nodes[0]!.client.as(phone, 'GET', '/api/v1/auth/join/pending');
      assert.equal(pending.status, 200);
      assert.equal(pending.body.data[0].ip, '127.0.0.1');
    });
  });
}
