// PRODUCT §0 / STANDARDS "Idempotency-Key": replay of the first response, reuse with another body,
// malformed keys, principal scope, in-flight keys, 24 h retention, and replays that survive a
// restart because the records live in the shared database.
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { createManualClock } from '../../src/platform/clock.js';
import { loadConfig } from '../../src/platform/config.js';
import { backends } from '../helpers/backends.js';
import type { TestBackend } from '../helpers/backends.js';
import { PUBLIC_ORIGIN, startTestApp, testConfig } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { TestClient, uniqueName } from '../helpers/client.js';
import type { CallResult, Device } from '../helpers/client.js';
import { createContractChecker } from '../helpers/contract.js';
import { idempotencyQueries } from '../../src/platform/store/idempotency.js';
import { expectProblem } from '../helpers/problem.js';

const ME = '/api/v1/me';
const HOUR = 3600_000;

/** What the idempotency plugin stores as the request fingerprint. */
function fingerprintOf(body: unknown): string {
  return createHash('sha256').update(JSON.stringify(body ?? null)).digest('base64url');
}

async function version(client: TestClient, device: Device): Promise<number> {
  const me = await client.as(device, 'GET', ME);
  assert.equal(me.status, 200);
  assert.equal(me.headers.get('etag'), `"${me.body.version}"`);
  return me.body.version as number;
}

function patch(client: TestClient, device: Device, body: unknown, headers: Record<string, string>): Promise<CallResult> {
  return client.as(device, 'PATCH', ME, { body, headers });
}

/** A new session of the same account (the old access token expires after 10 min of clock). */
async function relogin(client: TestClient, device: Device): Promise<Device> {
  const login = await client.logIn(device.authenticator);
  assert.equal(login.status, 200, JSON.stringify(login.body));
  return { ...device, key: login.key, tokens: login.body };
}

/** One service node over an existing store, as the server would start (see startTestApp). */
async function startNode(config: ReturnType<typeof loadConfig>, store: Awaited<ReturnType<TestBackend['open']>>['store'], clock: ReturnType<typeof createManualClock>) {
  const { app } = await buildApp({ config, store, clock, logger: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const document = await (await fetch(`${baseUrl}/api/v1/openapi.json`)).json();
  const client = new TestClient(baseUrl, PUBLIC_ORIGIN, createContractChecker(document), clock.now);
  return { app, client };
}

for (const backend of backends) {
  describe(`conventions: Idempotency-Key on PATCH /me [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend);
    });
    after(() => t.close());

    it('replays the first response for the same key and body, once, even with a now stale If-Match', async () => {
      const device = await t.client.signUp(uniqueName('idem'));
      const v = await version(t.client, device);
      const key = randomUUID();
      const body = { display_name: 'First Try', locale: 'de-CH' };
      const first = await patch(t.client, device, body, { 'if-match': `"${v}"`, 'idempotency-key': key });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(first.body.version, v + 1);
      assert.equal(first.headers.get('etag'), `"${v + 1}"`);
      assert.equal(first.headers.get('vid-idempotent-replay'), null);

      const again = await patch(t.client, device, body, { 'if-match': `"${v}"`, 'idempotency-key': key });
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.equal(again.headers.get('vid-idempotent-replay'), 'true');
      assert.deepEqual(again.body, first.body);
      assert.equal(again.headers.get('etag'), `"${v + 1}"`);
      assert.equal(again.headers.get('content-type')?.split(';')[0], 'application/json');
      assert.notEqual(again.headers.get('vid-request-id'), first.headers.get('vid-request-id'));

      const third = await patch(t.client, device, body, { 'if-match': `"${v + 1}"`, 'idempotency-key': key });
      assert.equal(third.status, 200);
      assert.equal(third.headers.get('vid-idempotent-replay'), 'true');
      assert.deepEqual(third.body, first.body);

      assert.equal(await version(t.client, device), v + 1, 'no second change');
    });

    it('replays a refusal too: the stored 412 comes back for the same key and body', async () => {
      const device = await t.client.signUp(uniqueName('idem412'));
      const v = await version(t.client, device);
      const key = randomUUID();
      const body = { display_name: 'Late' };
      const stale = await patch(t.client, device, body, { 'if-match': `"${v + 7}"`, 'idempotency-key': key });
      expectProblem(stale, 412, 'version_mismatch');
      const retry = await patch(t.client, device, body, { 'if-match': `"${v}"`, 'idempotency-key': key });
      assert.equal(retry.status, 412);
      assert.equal(retry.headers.get('vid-idempotent-replay'), 'true');
      assert.equal(retry.headers.get('content-type')?.split(';')[0], 'application/problem+json');
      assert.equal(retry.body.code, 'version_mismatch');
      assert.equal(await version(t.client, device), v);
    });

    it('answers the same key with another body with 409 idempotency_key_reused and changes nothing', async () => {
      const device = await t.client.signUp(uniqueName('reuse'));
      const v = await version(t.client, device);
      const key = randomUUID();
      const first = await patch(t.client, device, { display_name: 'One' }, { 'if-match': `"${v}"`, 'idempotency-key': key });
      assert.equal(first.status, 200);
      const other = await patch(t.client, device, { display_name: 'Two' }, { 'if-match': `"${v + 1}"`, 'idempotency-key': key });
      expectProblem(other, 409, 'idempotency_key_reused');
      assert.equal(other.headers.get('vid-idempotent-replay'), null);
      const me = await t.client.as(device, 'GET', ME);
      assert.equal(me.body.version, v + 1);
      assert.equal(me.body.display_name, 'One');
    });

    it('answers a key that is not a UUID with 400 invalid_idempotency_key and changes nothing', async () => {
      const device = await t.client.signUp(uniqueName('badkey'));
      const v = await version(t.client, device);
      for (const key of ['not-a-uuid', '12345', `${randomUUID()}x`, randomUUID().replace(/-/g, ''), `${randomUUID()}, ${randomUUID()}`]) {
        const res = await patch(t.client, device, { display_name: 'Nope' }, { 'if-match': `"${v}"`, 'idempotency-key': key });
        expectProblem(res, 400, 'invalid_idempotency_key');
      }
      assert.equal(await version(t.client, device), v);
    });

    it('scopes keys by principal: another account using the same key and body is independent', async () => {
      const alice = await t.client.signUp(uniqueName('alice'));
      const bob = await t.client.signUp(uniqueName('bob'));
      const key = randomUUID();
      const body = { display_name: 'Same Name' };
      const va = await version(t.client, alice);
      const vb = await version(t.client, bob);
      const a = await patch(t.client, alice, body, { 'if-match': `"${va}"`, 'idempotency-key': key });
      assert.equal(a.status, 200);
      const b = await patch(t.client, bob, body, { 'if-match': `"${vb}"`, 'idempotency-key': key });
      assert.equal(b.status, 200, JSON.stringify(b.body));
      assert.equal(b.headers.get('vid-idempotent-replay'), null, 'not a replay of alice');
      assert.equal(b.body.id, bob.accountId);
      assert.equal(b.body.username, bob.username);
      assert.equal(await version(t.client, bob), vb + 1);
      // And another body under bob's scope does not collide with alice's record either.
      const c = await patch(t.client, bob, { display_name: 'Other' }, { 'if-match': `"${vb + 1}"`, 'idempotency-key': randomUUID() });
      assert.equal(c.status, 200);
      assert.equal(await version(t.client, alice), va + 1);
    });

    it('answers a key still in flight with 409 idempotency_request_in_progress and Retry-After', async () => {
      const device = await t.client.signUp(uniqueName('inflight'));
      const v = await version(t.client, device);
      const key = randomUUID();
      const body = { display_name: 'Busy' };
      const now = t.clock.now();
      const claim = await t.store.use(idempotencyQueries).claim(
        {
          scope: `PATCH ${ME} {} {} acc:${device.accountId}`,
          idem_key: key,
          fingerprint: fingerprintOf(body),
          state: 'in_flight',
          status: null,
          body: null,
          headers: null,
          locked_until: now + 60_000,
          expires_at: now + 24 * HOUR,
        },
        now,
      );
      assert.equal(claim.claimed, true);
      const res = await patch(t.client, device, body, { 'if-match': `"${v}"`, 'idempotency-key': key });
      expectProblem(res, 409, 'idempotency_request_in_progress');
      const retryAfter = res.headers.get('retry-after');
      assert.match(retryAfter ?? '', /^[1-9]\d*$/, 'Retry-After in delay-seconds');
      assert.equal(await version(t.client, device), v);
      // Another body under the same in-flight key is a reuse, not a wait.
      const other = await patch(t.client, device, { display_name: 'Else' }, { 'if-match': `"${v}"`, 'idempotency-key': key });
      expectProblem(other, 409, 'idempotency_key_reused');
    });

    it('runs concurrent requests with one key only once', async () => {
      const device = await t.client.signUp(uniqueName('race'));
      const v = await version(t.client, device);
      const key = randomUUID();
      const body = { display_name: 'Racer' };
      const results = await Promise.all([0, 1, 2].map(() => patch(t.client, device, body, { 'if-match': `"${v}"`, 'idempotency-key': key })));
      const fresh = results.filter((r) => r.status === 200 && r.headers.get('vid-idempotent-replay') === null);
      assert.equal(fresh.length, 1, JSON.stringify(results.map((r) => [r.status, r.body.code])));
      for (const r of results) {
        if (r === fresh[0]) continue;
        if (r.status === 200) {
          assert.equal(r.headers.get('vid-idempotent-replay'), 'true');
          assert.deepEqual(r.body, fresh[0]!.body);
        } else {
          expectProblem(r, 409, 'idempotency_request_in_progress');
          assert.ok(r.headers.get('retry-after'));
        }
      }
      assert.equal(await version(t.client, device), v + 1);
    });

    it('keeps a key 24 hours, then lets it be used anew', async () => {
      let device = await t.client.signUp(uniqueName('expiry'));
      const v = await version(t.client, device);
      const key = randomUUID();
      const body = { display_name: 'Daily' };
      const first = await patch(t.client, device, body, { 'if-match': `"${v}"`, 'idempotency-key': key });
      assert.equal(first.status, 200);

      t.clock.advance(23 * HOUR);
      device = await relogin(t.client, device);
      const stillKept = await patch(t.client, device, body, { 'if-match': `"${v + 1}"`, 'idempotency-key': key });
      assert.equal(stillKept.status, 200);
      assert.equal(stillKept.headers.get('vid-idempotent-replay'), 'true');
      assert.deepEqual(stillKept.body, first.body);
      assert.equal(await version(t.client, device), v + 1);

      t.clock.advance(HOUR + 1000);
      device = await relogin(t.client, device);
      const anew = await patch(t.client, device, body, { 'if-match': `"${v + 1}"`, 'idempotency-key': key });
      assert.equal(anew.status, 200, JSON.stringify(anew.body));
      assert.equal(anew.headers.get('vid-idempotent-replay'), null);
      assert.equal(anew.body.version, v + 2);
      // ...and a different body under the expired key is no longer a reuse either.
      t.clock.advance(24 * HOUR + 1000);
      device = await relogin(t.client, device);
      const otherBody = await patch(t.client, device, { display_name: 'Nightly' }, { 'if-match': `"${v + 2}"`, 'idempotency-key': key });
      assert.equal(otherBody.status, 200, JSON.stringify(otherBody.body));
      assert.equal(otherBody.body.version, v + 3);
      assert.equal(otherBody.body.display_name, 'Nightly');
    });
  });

  describe(`conventions: Idempotency-Key across nodes and restarts [${backend.name}]`, { skip: backend.skip }, () => {
    let database: Awaited<ReturnType<TestBackend['open']>>;
    let config: ReturnType<typeof loadConfig>;
    const clock = createManualClock(Date.now());
    before(async () => {
      database = await backend.open();
      config = testConfig(database.databaseUrl);
    });
    after(() => database.cleanup());

    it('replays on another node and after a restart, from the shared database', async () => {
      const first = await startNode(config, database.store, clock);
      const second = await startNode(config, database.store, clock);
      let restarted: Awaited<ReturnType<typeof startNode>> | undefined;
      try {
        const device = await first.client.signUp(uniqueName('restart'));
        const v = await version(first.client, device);
        const key = randomUUID();
        const body = { display_name: 'Survivor', default_country: 'ch' };
        const original = await patch(first.client, device, body, { 'if-match': `"${v}"`, 'idempotency-key': key });
        assert.equal(original.status, 200, JSON.stringify(original.body));
        assert.equal(original.body.default_country, 'CH');

        const otherNode = await patch(second.client, device, body, { 'if-match': `"${v}"`, 'idempotency-key': key });
        assert.equal(otherNode.status, 200);
        assert.equal(otherNode.headers.get('vid-idempotent-replay'), 'true');
        assert.deepEqual(otherNode.body, original.body);

        await first.app.close();
        await second.app.close();
        restarted = await startNode(config, database.store, clock);
        const afterRestart = await patch(restarted.client, device, body, { 'if-match': `"${v}"`, 'idempotency-key': key });
        assert.equal(afterRestart.status, 200, JSON.stringify(afterRestart.body));
        assert.equal(afterRestart.headers.get('vid-idempotent-replay'), 'true');
        assert.deepEqual(afterRestart.body, original.body);
        assert.equal(afterRestart.headers.get('etag'), `"${v + 1}"`);
        const reused = await patch(restarted.client, device, { display_name: 'Changed' }, { 'if-match': `"${v + 1}"`, 'idempotency-key': key });
        expectProblem(reused, 409, 'idempotency_key_reused');
        assert.equal(await version(restarted.client, device), v + 1);
      } finally {
        await first.app.close();
        await second.app.close();
        await restarted?.app.close();
      }
    });
  });
}
