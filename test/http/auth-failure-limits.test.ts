// Failed authentication is throttled (decision 003, "Failed authentications"): unknown access
// tokens, tokens sent with another key's proof and invalid DPoP proofs on session routes count per
// client address, and (once a proof's signature has verified) per DPoP key thumbprint. Past the
// limit the address or key gets 429 too_many_failed_authentications with Retry-After, before any
// token lookup, until the one-minute window ends. Requests that succeed are never counted, nor is
// an expired token presented by its own key. In memory on one node; in Redis across nodes.
import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { loadConfig } from '../../src/platform/config.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';
import type { CallResult, Device, TestClient } from '../helpers/client.js';
import { startNodes } from '../helpers/nodes.js';
import type { TestCluster, TestNode } from '../helpers/nodes.js';
import { expectProblem } from '../helpers/problem.js';

const ME = '/api/v1/me';
const MINUTE_MS = 60_000;
const PER_CLIENT = 5;
const PER_KEY = 3;
const LIMITS = { AUTH_FAILURES_PER_CLIENT_PER_MIN: String(PER_CLIENT), AUTH_FAILURES_PER_KEY_PER_MIN: String(PER_KEY), TRUST_PROXY: '1' };

/** A client address of its own (concurrent runs may share one Redis). */
function newAddress(): string {
  return `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
}

const from = (address: string) => ({ 'x-forwarded-for': address });

/** A token nobody was ever given. */
const unknownToken = () => `vid_at_${randomBytes(32).toString('base64url')}`;

/** GET /me with an unknown token and a valid proof by a fresh key (or the given one). */
async function wrongToken(client: TestClient, address: string, key?: Device['key']): Promise<CallResult> {
  return client.call('GET', ME, { key: key ?? (await client.newKey()), token: unknownToken(), headers: from(address) });
}

function expectInvalidToken(res: CallResult): void {
  expectProblem(res, 401, 'invalid_token');
}

function expectThrottled(res: CallResult, now: number): number {
  expectProblem(res, 429, 'too_many_failed_authentications');
  const retryAfter = Number(res.headers.get('retry-after'));
  const windowEnd = Math.floor(now / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
  assert.equal(retryAfter, Math.ceil((windowEnd - now) / 1000), `Retry-After: ${res.headers.get('retry-after')}`);
  return retryAfter;
}

/** Just after the start of the next one-minute window, so a test owns a whole window. */
function nextWindow(clock: { now(): number; set(at: number): void }): void {
  clock.set(Math.floor(clock.now() / MINUTE_MS) * MINUTE_MS + MINUTE_MS + 1000);
}

describe('failed authentication limits: configuration', () => {
  it('defaults to 30 failures a minute per address and 20 per key', () => {
    assert.deepEqual(loadConfig({}).authFailures, { perClientPerMinute: 30, perKeyPerMinute: 20 });
    assert.deepEqual(loadConfig({ AUTH_FAILURES_PER_CLIENT_PER_MIN: '7', AUTH_FAILURES_PER_KEY_PER_MIN: '3' }).authFailures, { perClientPerMinute: 7, perKeyPerMinute: 3 });
    assert.throws(() => loadConfig({ AUTH_FAILURES_PER_CLIENT_PER_MIN: '0' }), /AUTH_FAILURES_PER_CLIENT_PER_MIN/);
  });
});

for (const backend of backends) {
  describe(`failed authentication is throttled [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    let device: Device;
    before(async () => {
      t = await startTestApp(backend, LIMITS);
      device = await t.client.signUp(uniqueName('authfail'));
    });
    after(() => t.close());
    beforeEach(() => nextWindow(t.clock));

    /** The device's own GET /me, from an address. */
    async function ownRequest(address: string): Promise<CallResult> {
      return t.client.as(device, 'GET', ME, { headers: from(address) });
    }

    /** Tokens that are current at the test's clock (tests move it by whole windows). */
    async function freshLogin(): Promise<void> {
      const login = await t.client.logIn(device.authenticator);
      assert.equal(login.status, 200, JSON.stringify(login.body));
      device.key = login.key;
      device.tokens = login.body;
    }

    it('wrong tokens with valid proofs: past the limit an address gets 429 with Retry-After, even with a right token, until the window ends', async () => {
      await freshLogin();
      const attacker = newAddress();
      for (let i = 0; i < PER_CLIENT; i++) expectInvalidToken(await wrongToken(t.client, attacker));
      expectThrottled(await wrongToken(t.client, attacker), t.clock.now());
      // Refused before the token is looked up: a right token from that address is refused too.
      const retryAfter = expectThrottled(await ownRequest(attacker), t.clock.now());
      // Another address is not affected.
      assert.equal((await ownRequest(newAddress())).status, 200);
      t.clock.advance(retryAfter * 1000 - 1000);
      expectThrottled(await wrongToken(t.client, attacker), t.clock.now());
      t.clock.advance(1000);
      await freshLogin();
      assert.equal((await ownRequest(attacker)).status, 200);
      expectInvalidToken(await wrongToken(t.client, attacker));
    });

    it('counts per DPoP key across addresses: one key past its limit is refused wherever it comes from, other keys are not', async () => {
      const key = await t.client.newKey();
      for (let i = 0; i < PER_KEY; i++) expectInvalidToken(await wrongToken(t.client, newAddress(), key));
      expectThrottled(await wrongToken(t.client, newAddress(), key), t.clock.now());
      const address = newAddress();
      expectThrottled(await wrongToken(t.client, address, key), t.clock.now());
      expectInvalidToken(await wrongToken(t.client, address));
    });

    it('a token sent with another key\'s proof is a failure too, expired or not', async () => {
      await freshLogin();
      const attacker = newAddress();
      const thief = await t.client.newKey();
      for (let i = 0; i < PER_KEY; i++) {
        const res = await t.client.call('GET', ME, { key: thief, token: device.tokens.access_token, headers: from(attacker) });
        expectInvalidToken(res);
      }
      expectThrottled(await t.client.call('GET', ME, { key: thief, token: device.tokens.access_token, headers: from(newAddress()) }), t.clock.now());
      // The token's owner is not hurt by what the thief's key did.
      assert.equal((await ownRequest(newAddress())).status, 200);

      const sleeper = newAddress();
      t.clock.advance(10 * MINUTE_MS);
      nextWindow(t.clock);
      for (let i = 0; i < PER_CLIENT; i++) expectInvalidToken(await t.client.call('GET', ME, { key: await t.client.newKey(), token: device.tokens.access_token, headers: from(sleeper) }));
      expectThrottled(await ownRequest(sleeper), t.clock.now());
    });

    it('an expired token sent by its own key is not a failure: a client waking up with many requests keeps its key and address, renews and goes on', async () => {
      await freshLogin();
      const address = newAddress();
      t.clock.advance(t.config.tokens.accessTtlSeconds * 1000);
      nextWindow(t.clock);
      // Far past both limits (and the defaults, 30 per address and 20 per key).
      for (let i = 0; i < 50; i++) {
        const res = await ownRequest(address);
        expectInvalidToken(res);
        assert.equal(res.body.detail, 'the access token has expired');
      }
      const renewed = await t.client.call('POST', '/api/v1/auth/token/renew', { body: { refresh_token: device.tokens.refresh_token }, key: device.key, headers: from(address) });
      assert.equal(renewed.status, 200, JSON.stringify(renewed.body));
      device.tokens = renewed.body;
      assert.equal((await ownRequest(address)).status, 200);
      // The budgets are whole: wrong tokens from the address, and on the key, are still counted.
      for (let i = 0; i < PER_KEY; i++) expectInvalidToken(await wrongToken(t.client, address, device.key));
      expectThrottled(await wrongToken(t.client, newAddress(), device.key), t.clock.now());
      for (let i = PER_KEY; i < PER_CLIENT; i++) expectInvalidToken(await wrongToken(t.client, address));
      expectThrottled(await wrongToken(t.client, address), t.clock.now());
    });

    it('invalid proofs count against the address only, never against the key they claim: nobody can lock out another person\'s key', async () => {
      await freshLogin();
      const victimKey = device.key;
      // Proofs naming the victim's public key with a broken signature, from many addresses.
      for (let i = 0; i < PER_KEY * 3; i++) {
        const proof = await victimKey.proof('GET', t.client.publicOrigin + ME, { accessToken: device.tokens.access_token });
        const broken = proof.slice(0, -6) + (proof.endsWith('AAAAAA') ? 'BBBBBB' : 'AAAAAA');
        const res = await t.client.call('GET', ME, { token: device.tokens.access_token, headers: { ...from(newAddress()), dpop: broken } });
        assert.equal(res.status, 401);
        assert.equal(res.body.code, 'invalid_dpop_proof');
      }
      assert.equal((await ownRequest(newAddress())).status, 200);
      // From one address, invalid proofs reach the address's limit.
      const attacker = newAddress();
      for (let i = 0; i < PER_CLIENT; i++) {
        const res = await t.client.call('GET', ME, { key: await t.client.newKey(), token: unknownToken(), headers: from(attacker), proofOptions: { htu: 'https://elsewhere.example/api/v1/me' } });
        assert.equal(res.body.code, 'invalid_dpop_proof');
      }
      expectThrottled(await ownRequest(attacker), t.clock.now());
    });

    it('a client that keeps succeeding is never counted, and a request without credentials is not a failure', async () => {
      await freshLogin();
      const address = newAddress();
      for (let i = 0; i < PER_CLIENT * 4; i++) assert.equal((await ownRequest(address)).status, 200);
      for (let i = 0; i < PER_CLIENT * 2; i++) {
        const res = await t.client.call('GET', ME, { headers: from(address) });
        assert.equal(res.status, 401);
        assert.equal(res.body.code, 'unauthenticated');
      }
      // The whole failure budget is still there.
      for (let i = 0; i < PER_CLIENT; i++) expectInvalidToken(await wrongToken(t.client, address));
      assert.equal((await wrongToken(t.client, address)).status, 429);
    });
  });
}

const postgres = backends.find((b) => b.name === 'postgres')!;
const REDIS_URL = process.env.TEST_REDIS_URL;

describe('failed authentication across nodes, counted in Redis [postgres]', { skip: postgres.skip || (REDIS_URL ? false : 'TEST_REDIS_URL is not set') }, () => {
  let cluster: TestCluster;
  let one: TestNode;
  let two: TestNode;
  let redis: Redis;
  before(async () => {
    cluster = await startNodes(postgres, 2, { REDIS_URL: REDIS_URL as string, ...LIMITS });
    [one, two] = cluster.nodes as [TestNode, TestNode];
    redis = new Redis(REDIS_URL as string);
  });
  after(async () => {
    redis?.disconnect();
    await cluster?.close();
  });

  it('failures on both nodes count against one limit; then both nodes refuse the address', async () => {
    nextWindow(cluster.clock);
    const attacker = newAddress();
    for (let i = 0; i < PER_CLIENT; i++) expectInvalidToken(await wrongToken((i % 2 === 0 ? one : two).client, attacker));
    expectThrottled(await wrongToken(one.client, attacker), cluster.clock.now());
    expectThrottled(await wrongToken(two.client, attacker), cluster.clock.now());
    // The failures' one shared counter (each answer is also counted as a public request of the address).
    const keys = await redis.keys(`vid:rl:*authfail*${attacker}*`);
    assert.equal(keys.length, 1, `keys: ${keys.join(', ')}`);
    const ttl = await redis.pttl(keys[0]!);
    assert.ok(ttl > 0 && ttl <= 2 * MINUTE_MS, `ttl ${ttl}`);
  });

  it('successful requests leave no failure counter behind', async () => {
    nextWindow(cluster.clock);
    const device = await one.client.signUp(uniqueName('authfailnodes'));
    const address = newAddress();
    for (let i = 0; i < 4; i++) {
      const node = i % 2 === 0 ? one : two;
      assert.equal((await node.client.as(device, 'GET', ME, { headers: from(address) })).status, 200);
    }
    assert.deepEqual(await redis.keys(`vid:rl:*${address}*`), []);
    assert.deepEqual(await redis.keys(`vid:rl:*${device.key.jkt}*`), []);
  });
});
