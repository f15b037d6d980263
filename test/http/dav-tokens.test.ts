// PRODUCT §9, decision 150: address-book passwords. Created behind a step-up with an
// Idempotency-Key and shown once; listed without the password; at most 10; revoked one by one or
// all at once; each creation and revocation in the security log and signalled. The service the
// CardDAV routes call (davTokens.authenticate) is driven through the test app's services: it
// accepts a fresh password, refuses a revoked one at once, a wrong password, user name or
// header, a deleted or locked account, throttles failures per address and per password (and
// across nodes through Redis) without ever refusing the right password (decision 310), and stamps the last use at most once a minute. Both backends.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import type { VidApp } from '../../src/app.js';
import { createManualClock } from '../../src/platform/clock.js';
import { deviceLabel } from '../../src/platform/client-info.js';
import { AppError } from '../../src/platform/errors.js';
import type { DavPrincipal, DavTokenService } from '../../src/modules/dav-tokens/service.js';
import { PUBLIC_ORIGIN, TEST_SECRET_KEY, startTestApp, testConfig } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { TestClient, uniqueName } from '../helpers/client.js';
import type { Device } from '../helpers/client.js';
import { createContractChecker } from '../helpers/contract.js';
import { startNodes } from '../helpers/nodes.js';
import type { TestCluster, TestNode } from '../helpers/nodes.js';
import { expectProblem } from '../helpers/problem.js';
import { API, social } from '../helpers/social.js';
import { STEP_UP_HEADER, stepUp } from '../helpers/step-up.js';

const PER_CLIENT = 5;
const PER_TOKEN = 6;
const PASSWORD = /^vidcd_(dav_[A-Za-z0-9_-]{22})_[A-Za-z0-9_-]{43}$/;
const IPHONE = 'iOS/18.1 (22B83) dataaccessd/1.0';
const MAC = 'macOS/15.1 (24B83) AddressBookCore/2694.100.11';

const basic = (userId: string, password: string, scheme = 'Basic') => `${scheme} ${Buffer.from(`${userId}:${password}`, 'utf8').toString('base64')}`;
/** A client address of its own for each use, so one test's failures never throttle another's. */
const freshIp = () => `198.51.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;

async function refused(promise: Promise<unknown>, status: number, code: string): Promise<AppError> {
  let caught: unknown;
  await assert.rejects(promise, (error: unknown) => {
    caught = error;
    return error instanceof AppError && error.status === status && error.code === code;
  });
  return caught as AppError;
}

async function createVia(client: TestClient, device: Device, label: string, headers: Record<string, string> = {}) {
  return client.as(device, 'POST', `${API}/dav-tokens`, {
    body: { label },
    headers: { [STEP_UP_HEADER]: await stepUp(client, device), 'idempotency-key': randomUUID(), ...headers },
  });
}

for (const backend of backends) {
  describe(`dav tokens [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    let s: ReturnType<typeof social>;
    let dav: DavTokenService;
    before(async () => {
      t = await startTestApp(backend, { AUTH_FAILURES_PER_CLIENT_PER_MIN: String(PER_CLIENT), AUTH_FAILURES_PER_KEY_PER_MIN: String(PER_TOKEN) });
      s = social(t);
      dav = t.services.davTokens;
    });
    after(() => t.close());

    async function create(device: Device, label = 'iPhone'): Promise<{ id: string; secret: string }> {
      // A millisecond apart, so the list's order (oldest first) is the order of creation.
      t.clock.advance(1);
      const res = await createVia(t.client, device, label);
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body;
    }
    const list = async (device: Device) => (await s.get(device, '/dav-tokens')).body.data as any[];
    const revoke = (device: Device, id: string) => t.client.as(device, 'DELETE', `${API}/dav-tokens/${id}`);
    const revokeAll = (device: Device) => t.client.as(device, 'DELETE', `${API}/dav-tokens`);
    const signIn = (device: Device, secret: string, userAgent = IPHONE, ip = freshIp()): Promise<DavPrincipal> => dav.authenticate(basic(device.username, secret), { ip, userAgent });
    const securityKinds = async (device: Device) => ((await s.get(device, '/auth/security-log')).body.data as Array<{ kind: string }>).map((e) => e.kind);

    it('creates a password behind a step-up and an Idempotency-Key, shows it once and lists it without it', async () => {
      const alice = await s.person('alice');
      expectProblem(await t.client.as(alice, 'POST', `${API}/dav-tokens`, { body: { label: 'iPhone' }, headers: { 'idempotency-key': randomUUID() } }), 403, 'step_up_required');
      expectProblem(await t.client.as(alice, 'POST', `${API}/dav-tokens`, { body: { label: 'iPhone' }, headers: { [STEP_UP_HEADER]: await stepUp(t.client, alice) } }), 400, 'idempotency_key_required');
      assert.deepEqual(await list(alice), [], 'refused creations made nothing');

      const key = randomUUID();
      const res = await createVia(t.client, alice, '  My   iPhone ', { 'idempotency-key': key });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.headers.get('cache-control'), 'no-store');
      const token = res.body;
      assert.deepEqual(Object.keys(token).sort(), ['created_at', 'id', 'label', 'schema_version', 'secret', 'server_url', 'username']);
      assert.match(token.id, /^dav_[A-Za-z0-9_-]{22}$/);
      assert.equal(PASSWORD.exec(token.secret)?.[1], token.id, 'vidcd_<id>_<secret>');
      assert.deepEqual({ label: token.label, username: token.username, server_url: token.server_url, schema_version: token.schema_version }, { label: 'My iPhone', username: alice.username, server_url: `${PUBLIC_ORIGIN}/dav/`, schema_version: 1 });
      assert.equal(token.created_at, new Date(t.clock.now()).toISOString());

      // A retry of the same request replays the first answer; nothing new is made.
      const replay = await t.client.as(alice, 'POST', `${API}/dav-tokens`, { body: { label: '  My   iPhone ' }, headers: { 'idempotency-key': key } });
      assert.equal(replay.status, 201);
      assert.equal(replay.headers.get('vid-idempotent-replay'), 'true');
      assert.equal(replay.body.secret, token.secret);

      const listed = await s.get(alice, '/dav-tokens');
      assert.equal(listed.status, 200);
      assert.equal(listed.headers.get('cache-control'), 'no-store');
      assert.deepEqual(listed.body, {
        data: [{ id: token.id, label: 'My iPhone', created_at: token.created_at, last_used_at: null, last_user_agent: null, device_label: null, schema_version: 1 }],
        next_cursor: null,
        has_more: false,
      });
      const secretPart = token.secret.slice(-43);
      assert.ok(!JSON.stringify(listed.body).includes(secretPart), 'the list never shows the password');
      const stored = await t.store.handle.db.selectFrom('dav_tokens').selectAll().where('id', '=', token.id).executeTakeFirstOrThrow();
      assert.ok(!JSON.stringify(stored).includes(secretPart), 'only a keyed hash is stored');
    });

    it('refuses empty, long and unsafe labels', async () => {
      const alice = await s.person('alice');
      for (const label of ['   ', 'x'.repeat(65), 'iPhone\u0007', 'evil\u202Eenohp']) {
        const problem = expectProblem(await createVia(t.client, alice, label), 400, 'validation_failed', JSON.stringify(label));
        assert.equal(problem.errors?.[0]?.path, '/label');
      }
      assert.equal((await createVia(t.client, alice, 'x'.repeat(64))).status, 201, '64 characters are fine');
    });

    it('authenticates the fresh password with the username in any case or the account id', async () => {
      const alice = await s.person('alice');
      const token = await create(alice);
      const principal = { accountId: alice.accountId, username: alice.username, tokenId: token.id };
      assert.deepEqual(await signIn(alice, token.secret), principal);
      assert.deepEqual(await dav.authenticate(basic(alice.username.toUpperCase(), token.secret), { ip: freshIp() }), principal);
      assert.deepEqual(await dav.authenticate(basic(alice.accountId, token.secret), { ip: freshIp() }), principal);
      assert.deepEqual(await dav.authenticate(basic(alice.username, token.secret, 'basic'), { ip: freshIp() }), principal, 'the scheme is case-insensitive (RFC 9110 §11.1)');
    });

    it('refuses a wrong password, another user name and malformed headers with 401 dav_unauthorized, saying nothing of the password', async () => {
      const alice = await s.person('alice');
      const bob = await s.person('bob');
      const token = await create(alice);
      const other = await create(bob);
      const flipped = token.secret.slice(0, -1) + (token.secret.endsWith('A') ? 'B' : 'A');
      const cases: Array<[string, string | undefined]> = [
        ['no header', undefined],
        ['empty header', ''],
        ['another scheme', `Bearer ${token.secret}`],
        ['not base64', 'Basic !!!!'],
        ['no colon', `Basic ${Buffer.from(token.secret).toString('base64')}`],
        ['a password of another format', basic(alice.username, 'hunter2')],
        ['the wrong secret for the id', basic(alice.username, flipped)],
        ['an unknown id', basic(alice.username, `vidcd_dav_${randomBytes(16).toString('base64url')}_${randomBytes(32).toString('base64url')}`)],
        ['another person\'s user name', basic(bob.username, token.secret)],
        ['another person\'s password', basic(alice.username, other.secret)],
        ['another account id', basic(bob.accountId, token.secret)],
        ['an empty user name', basic('', token.secret)],
      ];
      for (const [what, header] of cases) {
        const error = await refused(dav.authenticate(header, { ip: freshIp() }), 401, 'dav_unauthorized');
        assert.ok(!error.detail.includes(token.secret.slice(-43)) && !error.message.includes(token.secret.slice(-43)), `${what}: the refusal holds no password`);
      }
      assert.deepEqual(await signIn(alice, token.secret), { accountId: alice.accountId, username: alice.username, tokenId: token.id }, 'still fine');
    });

    it('revokes one at once, answers 404 for another person\'s or an unknown one, and revokes all', async () => {
      const alice = await s.person('alice');
      const bob = await s.person('bob');
      const phone = await create(alice, 'Phone');
      const laptop = await create(alice, 'Laptop');
      const tablet = await create(alice, 'Tablet');
      await signIn(alice, phone.secret);

      expectProblem(await revoke(bob, phone.id), 404, 'dav_token_not_found');
      expectProblem(await revoke(alice, 'dav_unknown'), 404, 'dav_token_not_found');
      await signIn(alice, phone.secret);

      assert.equal((await revoke(alice, phone.id)).status, 204);
      await refused(signIn(alice, phone.secret), 401, 'dav_unauthorized');
      expectProblem(await revoke(alice, phone.id), 404, 'dav_token_not_found', 'revoked already');
      assert.deepEqual((await list(alice)).map((tk) => tk.label), ['Laptop', 'Tablet']);
      await signIn(alice, laptop.secret);

      assert.equal((await t.client.as(alice, 'DELETE', `${API}/dav-tokens`, { headers: { 'idempotency-key': randomUUID() } })).status, 204);
      assert.deepEqual(await list(alice), []);
      for (const token of [laptop, tablet]) await refused(signIn(alice, token.secret), 401, 'dav_unauthorized');
      assert.equal((await revokeAll(alice)).status, 204, 'nothing left to revoke is fine');
    });

    it('holds at most 10 per account (409 dav_token_limit); a revoked one frees its place', async () => {
      const alice = await s.person('alice');
      const made = [];
      for (let n = 1; n <= 10; n++) made.push(await create(alice, `Device ${n}`));
      expectProblem(await createVia(t.client, alice, 'Eleventh'), 409, 'dav_token_limit');
      const page = await s.get(alice, '/dav-tokens?limit=4');
      assert.equal(page.body.data.length, 4);
      assert.equal(page.body.has_more, true);
      const rest = await s.get(alice, `/dav-tokens?limit=10&cursor=${page.body.next_cursor}`);
      assert.deepEqual([...page.body.data, ...rest.body.data].map((tk: any) => tk.id), made.map((tk) => tk.id), 'oldest first, no gaps');
      assert.equal((await revoke(alice, made[3]!.id)).status, 204);
      assert.equal((await createVia(t.client, alice, 'Eleventh')).status, 201);
      expectProblem(await createVia(t.client, alice, 'Twelfth'), 409, 'dav_token_limit');
      const bob = await s.person('bob');
      await create(bob, 'Bob\'s own');
    });

    it('refuses a deleted account and a locked one (401), and accepts again once restored or unlocked', async () => {
      const alice = await s.person('alice');
      const token = await create(alice);
      const deleted = await t.client.as(alice, 'DELETE', `${API}/account`, { headers: { [STEP_UP_HEADER]: await stepUp(t.client, alice) } });
      assert.equal(deleted.status, 202, JSON.stringify(deleted.body));
      await refused(signIn(alice, token.secret), 401, 'dav_unauthorized');
      assert.equal((await t.client.as(alice, 'POST', `${API}/account/undelete`)).status, 200);
      await signIn(alice, token.secret);

      await t.services.locks.lock(alice.username, 'spam reports');
      await refused(signIn(alice, token.secret), 401, 'dav_unauthorized');
      await t.services.locks.unlock(alice.username);
      await signIn(alice, token.secret);
    });

    it('throttles failures per address: 429 with Retry-After past the limit for a wrong password, never for the right one (decision 310)', async () => {
      const alice = await s.person('alice');
      const token = await create(alice);
      const ip = freshIp();
      // Asking without credentials first is what clients do: never counted.
      for (let n = 0; n < PER_CLIENT * 2; n++) await refused(dav.authenticate(undefined, { ip }), 401, 'dav_unauthorized');
      for (let n = 0; n < PER_CLIENT; n++) await refused(dav.authenticate(basic(alice.username, 'wrong'), { ip }), 401, 'dav_unauthorized');
      const throttled = await refused(dav.authenticate(basic(alice.username, 'wrong'), { ip }), 429, 'too_many_failed_authentications');
      assert.ok(throttled.retryAfterSeconds! >= 1 && throttled.retryAfterSeconds! <= 60, `Retry-After ${throttled.retryAfterSeconds}`);
      // A phone behind the same address (a shared Wi-Fi, a carrier's NAT) still signs in.
      assert.equal((await signIn(alice, token.secret, IPHONE, ip)).tokenId, token.id);
      t.clock.advance(throttled.retryAfterSeconds! * 1000);
      await refused(dav.authenticate(basic(alice.username, 'wrong'), { ip }), 401, 'dav_unauthorized');
    });

    it('throttles failures per password id from any address: wrong secrets past the limit are 429, the right password passes (decision 310)', async () => {
      const alice = await s.person('alice');
      const token = await create(alice);
      const flipped = token.secret.slice(0, -1) + (token.secret.endsWith('A') ? 'B' : 'A');
      for (let n = 0; n < PER_TOKEN; n++) await refused(signIn(alice, flipped), 401, 'dav_unauthorized');
      const throttled = await refused(signIn(alice, flipped), 429, 'too_many_failed_authentications');
      assert.ok(throttled.retryAfterSeconds! >= 1 && throttled.retryAfterSeconds! <= 60);
      assert.equal((await signIn(alice, token.secret)).tokenId, token.id, 'a stranger\'s guesses never lock the phone out');
      t.clock.advance(throttled.retryAfterSeconds! * 1000);
      await refused(signIn(alice, flipped), 401, 'dav_unauthorized');
    });

    it('stamps the last use and its user agent at most once a minute', async () => {
      const alice = await s.person('alice');
      const token = await create(alice);
      const lastUse = async () => {
        const [listed] = await list(alice);
        return { at: listed.last_used_at, agent: listed.last_user_agent, device: listed.device_label };
      };
      const first = t.clock.now();
      await signIn(alice, token.secret, IPHONE);
      assert.deepEqual(await lastUse(), { at: new Date(first).toISOString(), agent: IPHONE, device: deviceLabel(IPHONE) }, 'labelled as sessions are');
      t.clock.advance(30_000);
      await signIn(alice, token.secret, MAC);
      assert.deepEqual((await lastUse()).at, new Date(first).toISOString(), 'within the minute: not written');
      t.clock.advance(30_000);
      await signIn(alice, token.secret, MAC);
      assert.deepEqual(await lastUse(), { at: new Date(first + 60_000).toISOString(), agent: MAC, device: deviceLabel(MAC) }, 'a minute later: written');
    });

    it('writes each creation and revocation to the security log and signals dav-tokens.changed to the owner', async () => {
      const alice = await s.person('alice');
      const bob = await s.person('bob');
      const bobsSignals = (await s.signals(bob)).length;
      const one = await create(alice, 'One');
      await create(alice, 'Two');
      await create(alice, 'Three');
      assert.equal((await revoke(alice, one.id)).status, 204);
      assert.equal((await revokeAll(alice)).status, 204);
      const kinds = await securityKinds(alice);
      assert.equal(kinds.filter((k) => k === 'dav_token_created').length, 3, 'one entry per creation');
      assert.equal(kinds.filter((k) => k === 'dav_token_revoked').length, 3, 'one entry per revocation, each of revoke-all\'s too');
      const signals = (await s.signals(alice)).filter(([kind]) => kind === 'dav-tokens.changed');
      assert.equal(signals.length, 5, 'three creations, one revocation, one revoke-all');
      assert.ok(signals.every(([, resource]) => resource === '/dav-tokens'));
      assert.equal((await s.signals(bob)).length, bobsSignals, 'nobody else is told');
      assert.equal((await revokeAll(alice)).status, 204);
      assert.equal((await s.signals(alice)).filter(([kind]) => kind === 'dav-tokens.changed').length, 5, 'revoking nothing changes nothing');
    });

    it('exports names and use without the hash, and the purge erases them', async () => {
      const alice = await s.person('alice');
      const token = await create(alice, 'iPhone');
      await signIn(alice, token.secret);
      const exported = await t.client.as(alice, 'GET', `${API}/account/export`, { headers: { [STEP_UP_HEADER]: await stepUp(t.client, alice) } });
      assert.equal(exported.status, 200);
      const doc = typeof exported.body === 'string' ? JSON.parse(exported.body) : exported.body;
      assert.deepEqual(doc.dav_tokens.map((tk: any) => Object.keys(tk).sort()), [['created_at', 'id', 'label', 'last_used_at', 'last_user_agent']]);
      assert.ok(!JSON.stringify(doc).includes(token.secret.slice(-43)));
      assert.deepEqual(doc.left_out.find((entry: any) => entry.table === 'dav_tokens')?.columns, ['secret_hash']);

      const deleted = await t.client.as(alice, 'DELETE', `${API}/account`, { headers: { [STEP_UP_HEADER]: await stepUp(t.client, alice) } });
      t.clock.set(Date.parse(deleted.body.purge_at) + 1000);
      await t.services.purge.run(t.clock.now());
      const rows = await t.store.handle.db.selectFrom('dav_tokens').select('id').where('account_id', '=', alice.accountId).execute();
      assert.deepEqual(rows, []);
    });
  });
}

// Several nodes behind a load balancer share the failure counters through Redis and read the
// password on every request: a revocation on one node refuses on the other at once.
const postgres = backends.find((b) => b.name === 'postgres')!;
const REDIS_URL = process.env.TEST_REDIS_URL;
describe('dav tokens across two nodes on one database and one Redis [postgres]', { skip: postgres.skip || (REDIS_URL ? false : 'TEST_REDIS_URL is not set') }, () => {
  let cluster: TestCluster;
  before(async () => {
    cluster = await startNodes(postgres, 2, { REDIS_URL: REDIS_URL as string, AUTH_FAILURES_PER_CLIENT_PER_MIN: '1000', AUTH_FAILURES_PER_KEY_PER_MIN: String(PER_TOKEN) });
  });
  after(() => cluster?.close());

  it('counts failures for a password on both nodes together, and a revocation on one holds on the other', async () => {
    const [one, two] = cluster.nodes as [TestNode, TestNode];
    const alice = await one.client.signUp(uniqueName('dav'));
    const created = async () => {
      const res = await createVia(one.client, alice, 'Phone');
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body as { id: string; secret: string };
    };
    const token = await created();
    const other = await created();
    const nodes = [one.services.davTokens, two.services.davTokens];
    assert.equal((await nodes[1]!.authenticate(basic(alice.username, token.secret), { ip: freshIp() })).tokenId, token.id);

    const flipped = token.secret.slice(0, -1) + (token.secret.endsWith('A') ? 'B' : 'A');
    for (let n = 0; n < PER_TOKEN; n++) await refused(nodes[n % 2]!.authenticate(basic(alice.username, flipped), { ip: freshIp() }), 401, 'dav_unauthorized');
    // Each node counted some of the failures; the shared count is past the limit on both.
    for (const node of nodes) await refused(node.authenticate(basic(alice.username, flipped), { ip: freshIp() }), 429, 'too_many_failed_authentications');
    // And the right password still passes on both (decision 310).
    for (const node of nodes) assert.equal((await node.authenticate(basic(alice.username, token.secret), { ip: freshIp() })).tokenId, token.id);

    assert.equal((await nodes[1]!.authenticate(basic(alice.username, other.secret), { ip: freshIp() })).tokenId, other.id);
    assert.equal((await one.client.as(alice, 'DELETE', `${API}/dav-tokens/${other.id}`)).status, 204);
    await refused(nodes[1]!.authenticate(basic(alice.username, other.secret), { ip: freshIp() }), 401, 'dav_unauthorized');
  });
});

// The keyed hash across a rotation of SECRET_KEY (decision 110): a password hashed under the old
// key works while that key is accepted and is re-hashed under the new one on use; one that was
// not used meanwhile stops working once the old key is dropped (decision 150).
for (const backend of backends) {
  describe(`dav tokens across a secret key rotation [${backend.name}]`, { skip: backend.skip }, () => {
    const NEW_KEY = randomBytes(32).toString('base64url');
    const clock = createManualClock(Date.now());
    let database: Awaited<ReturnType<typeof backend.open>>;
    let running: VidApp | undefined;
    before(async () => {
      database = await backend.open();
    });
    after(async () => {
      await running?.app.close();
      await database.cleanup();
    });

    /** The service on the suite's database with these keys, the previous one stopped first (a restart). */
    async function restartWith(env: Record<string, string>): Promise<{ client: TestClient; dav: DavTokenService }> {
      await running?.app.close();
      running = await buildApp({ config: testConfig(database.databaseUrl, env), store: database.store, clock, logger: false });
      await running.app.listen({ host: '127.0.0.1', port: 0 });
      const baseUrl = `http://127.0.0.1:${(running.app.server.address() as AddressInfo).port}`;
      return { client: new TestClient(baseUrl, PUBLIC_ORIGIN, createContractChecker(JSON.parse(JSON.stringify(running.app.swagger()))), clock.now), dav: running.services.davTokens };
    }
    const hashOf = async (id: string) => (await database.store.handle.db.selectFrom('dav_tokens').select('secret_hash').where('id', '=', id).executeTakeFirstOrThrow()).secret_hash as string;

    it('re-hashes a password on use while the old key is accepted; an unused one stops working once it is dropped', async () => {
      const { client } = await restartWith({});
      const alice = await client.signUp(uniqueName('rotate'));
      const made = async (label: string) => {
        const res = await createVia(client, alice, label);
        assert.equal(res.status, 201, JSON.stringify(res.body));
        return res.body as { id: string; secret: string };
      };
      const used = await made('Phone');
      const idle = await made('Old tablet');
      const oldHash = await hashOf(used.id);

      let { dav } = await restartWith({ SECRET_KEY: NEW_KEY, SECRET_KEYS_ACCEPTED: TEST_SECRET_KEY });
      assert.equal((await dav.authenticate(basic(alice.username, used.secret), { ip: freshIp() })).tokenId, used.id);
      assert.notEqual(await hashOf(used.id), oldHash, 're-hashed under the current key');

      ({ dav } = await restartWith({ SECRET_KEY: NEW_KEY }));
      assert.equal((await dav.authenticate(basic(alice.username, used.secret), { ip: freshIp() })).tokenId, used.id);
      await refused(dav.authenticate(basic(alice.username, idle.secret), { ip: freshIp() }), 401, 'dav_unauthorized');
    });
  });
}
