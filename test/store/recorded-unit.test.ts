// The recorded unit (platform/store/recorded-unit.ts, decision 341) through the idempotency
// plugin, on both backends: a keyed route's change commits with its answer; a keyed route that
// awaits something else after its service call, or runs a direct statement while its change
// waits for the answer, fails its request (strict, as every suite runs: scripts/run-tests.mjs)
// and leaves nothing behind; the state table allows only the moves it names.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { createSecretBox } from '../../src/platform/crypto/secret-box.js';
import { idempotencyPlugin } from '../../src/platform/http/plugins/idempotency.js';
import { RecordedUnit, UNIT_TRANSITIONS } from '../../src/platform/store/recorded-unit.js';
import type { UnitState } from '../../src/platform/store/recorded-unit.js';
import type { Store } from '../../src/platform/store/store.js';
import { backends } from '../helpers/backends.js';

process.env.VID_STRICT_RECORDED_UNITS = '1';

const ceremony = (id: string) => ({ id, kind: 'test', challenge: 'c', username: null, user_handle: null, account_id: null, session_id: null, expires_at: Date.now() + 60_000 });

for (const backend of backends) {
  describe(`recorded units [${backend.name}]`, { skip: backend.skip }, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let app: FastifyInstance;
    before(async () => {
      ({ store, cleanup } = await backend.open());
      const ceremonies = store.repository({ ceremonies: (db) => ({ find: (id: string) => db.selectFrom('ceremonies').select('id').where('id', '=', id).executeTakeFirst() }) });
      app = Fastify();
      await app.register(idempotencyPlugin, { store, box: createSecretBox(randomBytes(32)), now: Date.now });
      /** The service call: one transaction writing one row. */
      const create = (id: string) => store.transaction(async (tx) => tx.db.insertInto('ceremonies').values(ceremony(id)).execute());
      app.post<{ Params: { id: string } }>('/answers/:id', { config: { idempotency: 'required' } }, async (request, reply) => {
        await create(request.params.id);
        return reply.code(201).send({ id: request.params.id });
      });
      app.post<{ Params: { id: string } }>('/awaits-after/:id', { config: { idempotency: 'required' } }, async (request, reply) => {
        await create(request.params.id);
        // Something else, after the service call: the change's transaction waits meanwhile.
        await new Promise((resolve) => setTimeout(resolve, 5));
        return reply.code(201).send({ id: request.params.id });
      });
      app.post<{ Params: { id: string } }>('/reads-directly/:id', { config: { idempotency: 'required' } }, async (request, reply) => {
        await create(request.params.id);
        // A direct statement while the change waits for the answer: it is not in the request's transaction.
        const found = await ceremonies.direct.ceremonies.find(request.params.id);
        return reply.code(201).send({ id: request.params.id, found: found !== undefined });
      });
      app.post<{ Params: { id: string } }>('/reads-back/:id', { config: { idempotency: 'required' } }, async (request, reply) => {
        await create(request.params.id);
        const found = await ceremonies.current.ceremonies.find(request.params.id);
        return reply.code(201).send({ id: request.params.id, found: found !== undefined });
      });
    });
    after(async () => {
      await app.close();
      await cleanup();
    });

    const post = (path: string, key = randomUUID()) => app.inject({ method: 'POST', url: path, headers: { 'idempotency-key': key } });
    const committed = async (id: string) => (await store.handle.db.selectFrom('ceremonies').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;

    it('commits a keyed route\'s change with its answer, which a retry replays', async () => {
      const key = randomUUID();
      const first = await post('/answers/one', key);
      assert.equal(first.statusCode, 201);
      assert.equal(await committed('one'), true);
      const again = await post('/answers/one', key);
      assert.equal(again.statusCode, 201);
      assert.equal(again.headers['vid-idempotent-replay'], 'true');
    });

    it('fails a keyed route that awaits something else after its service call, and keeps nothing of its change', async () => {
      const key = randomUUID();
      const late = await post('/awaits-after/two', key);
      assert.equal(late.statusCode, 500);
      assert.equal(await committed('two'), false);
      // The key is free again: the retry runs (and fails the same way), it is not a replay.
      const retry = await post('/awaits-after/two', key);
      assert.equal(retry.headers['vid-idempotent-replay'], undefined);
    });

    it('refuses a direct statement inside the open unit; `current` reads the request\'s own uncommitted write', async () => {
      const direct = await post('/reads-directly/three');
      assert.equal(direct.statusCode, 500);
      assert.equal(await committed('three'), false);
      const current = await post('/reads-back/four');
      assert.equal(current.statusCode, 201);
      assert.deepEqual(current.json(), { id: 'four', found: true });
      assert.equal(await committed('four'), true);
    });
  });
}

describe('the recorded unit\'s state table', () => {
  it('moves only along UNIT_TRANSITIONS, and an answer after the store gave up changes nothing', () => {
    const unit = new RecordedUnit<string>();
    const states: UnitState[] = [unit.state];
    assert.throws(() => unit.begin('tx'), /begin is not allowed from claimed/);
    unit.opening();
    unit.begin('tx');
    unit.begin('tx-retried');
    assert.equal(unit.tx, 'tx-retried');
    states.push(unit.state);
    void unit.handOver();
    assert.equal(unit.handedOver, true);
    assert.throws(() => unit.begin('tx-3'), /begin is not allowed from answering/);
    unit.finished(false);
    states.push(unit.state);
    unit.answer(undefined);
    assert.deepEqual(states, ['claimed', 'working', 'rolled_back']);
    assert.equal(unit.open, false);
    for (const [action, { from, to }] of Object.entries(UNIT_TRANSITIONS)) assert.ok(from.length > 0 && to, action);
  });
});
