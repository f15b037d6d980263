// Several server nodes on one database (issue item 4): codes, attempts, wrong-code counters,
// step-up challenges and idempotency records live in the database, so any node can take any
// step of a join. On PostgreSQL each extra node has its own pool; on SQLite they share the file.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { SoftwareAuthenticator } from '../helpers/authenticator.js';
import { uniqueName } from '../helpers/client.js';
import type { TestClient } from '../helpers/client.js';
import {
  JOIN,
  RELAXED_JOIN_LIMITS,
  attemptStatus,
  finishEphemeral,
  issueCode,
  joinSignals,
  joinedDevice,
  otherCode,
  passkeyCount,
  redeem,
  redeemOk,
  startExtraNode,
  stepUp,
} from '../helpers/join.js';
import type { ExtraNode } from '../helpers/join.js';
import { expectProblem } from '../helpers/problem.js';

for (const backend of backends) {
  describe(`join across nodes [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    let extra: ExtraNode[] = [];
    let n1: TestClient;
    let n2: TestClient;
    let n3: TestClient;
    before(async () => {
      t = await startTestApp(backend, RELAXED_JOIN_LIMITS);
      extra = [await startExtraNode(t), await startExtraNode(t)];
      n1 = t.client;
      n2 = extra[0]!.client;
      n3 = extra[1]!.client;
    });
    after(async () => {
      for (const node of extra) await node.close();
      await t.close();
    });

    it('issue on node 1, redeem on node 2, approve on node 3 (step-up begun on node 1), finish on node 1', async () => {
      assert.notEqual(n1.baseUrl, n2.baseUrl);
      const phone = await n1.signUp(uniqueName('nodes'));
      const { code } = await issueCode(n1, phone);
      const { attemptId, key } = await redeemOk(n2, phone.username, code);
      for (const node of [n1, n2, n3]) assert.equal(await attemptStatus(node, key, attemptId), 'awaiting_approval');
      const pending = await n3.as(phone, 'GET', `${JOIN}/pending`);
      assert.deepEqual(pending.body.data.map((p: any) => p.attempt_id), [attemptId]);

      const header = await stepUp(n1, phone);
      const approved = await n3.as(phone, 'POST', `${JOIN}/approve`, { body: { attempt_id: attemptId }, headers: { 'vid-step-up': header, 'idempotency-key': randomUUID() } });
      assert.equal(approved.status, 200, JSON.stringify(approved.body));
      for (const node of [n1, n2, n3]) assert.equal(await attemptStatus(node, key, attemptId), 'approved');

      const laptop = joinedDevice(await finishEphemeral(n1, key, attemptId), phone, key);
      assert.equal(laptop.tokens.trusted, false);
      // The session works on every node; a second finish on any node is refused.
      for (const node of [n1, n2, n3]) assert.equal((await node.as(laptop, 'GET', '/api/v1/me')).status, 200);
      expectProblem(await finishEphemeral(n2, key, attemptId), 409, 'join_already_finished');
      expectProblem(await finishEphemeral(n3, key, attemptId), 409, 'join_already_finished');
      assert.deepEqual(await joinSignals(t.store, phone.accountId), [
        'join.code.changed /auth/join/code',
        'join.requested /auth/join/pending',
        'join.changed /auth/join/pending',
        'join.changed /auth/join/pending',
      ]);
    });

    it('persist_device true across nodes: options on node 2, finish on node 3, exactly one passkey, login on node 1', async () => {
      const phone = await n1.signUp(uniqueName('nodes'));
      const { code } = await issueCode(n3, phone);
      const { attemptId, key } = await redeemOk(n1, phone.username, code);
      const approved = await n2.as(phone, 'POST', `${JOIN}/approve`, {
        body: { attempt_id: attemptId },
        headers: { 'vid-step-up': await stepUp(n2, phone), 'idempotency-key': randomUUID() },
      });
      assert.equal(approved.status, 200, JSON.stringify(approved.body));
      const options = await n2.call('POST', `${JOIN}/register-options`, { body: { attempt_id: attemptId }, key });
      assert.equal(options.status, 200);
      const authenticator = new SoftwareAuthenticator();
      const credential = await authenticator.createCredential(options.body.options, n2.publicOrigin);
      const before = await passkeyCount(t.store, phone.accountId);
      const finish = await n3.call('POST', `${JOIN}/finish`, { body: { attempt_id: attemptId, persist_device: true, credential }, key, headers: { 'idempotency-key': randomUUID() } });
      assert.equal(finish.status, 200, JSON.stringify(finish.body));
      assert.equal(finish.body.trusted, true);
      assert.equal(await passkeyCount(t.store, phone.accountId), before + 1);
      const login = await n1.logIn(authenticator);
      assert.equal(login.status, 200);
    });

    it('an approve retried on another node with the same Idempotency-Key replays, with no second signal', async () => {
      const phone = await n1.signUp(uniqueName('nodes'));
      const { code } = await issueCode(n1, phone);
      const { attemptId } = await redeemOk(n1, phone.username, code);
      const idempotencyKey = randomUUID();
      const body = { attempt_id: attemptId };
      const first = await n2.as(phone, 'POST', `${JOIN}/approve`, { body, headers: { 'vid-step-up': await stepUp(n2, phone), 'idempotency-key': idempotencyKey } });
      assert.equal(first.status, 200);
      const replay = await n3.as(phone, 'POST', `${JOIN}/approve`, { body, headers: { 'idempotency-key': idempotencyKey } });
      assert.equal(replay.status, 200, JSON.stringify(replay.body));
      assert.equal(replay.headers.get('vid-idempotent-replay'), 'true');
      assert.deepEqual(await joinSignals(t.store, phone.accountId), ['join.code.changed /auth/join/code', 'join.requested /auth/join/pending', 'join.changed /auth/join/pending']);
    });

    it('wrong codes on different nodes add up: five spread over three nodes void the live code', async () => {
      const phone = await n1.signUp(uniqueName('nodes'));
      const { code } = await issueCode(n1, phone);
      const nodes = [n1, n2, n3, n2, n3];
      for (let i = 0; i < 5; i++) expectProblem((await redeem(nodes[i]!, phone.username, otherCode(code, i + 1))).res, 422, 'join_code_invalid');
      for (const node of [n1, n2, n3]) expectProblem((await redeem(node, phone.username, code)).res, 422, 'join_code_invalid');
    });

    it('a code used on one node is used on all; a new issue on node 2 voids the code issued on node 1', async () => {
      const phone = await n1.signUp(uniqueName('nodes'));
      const used = await issueCode(n1, phone);
      await redeemOk(n2, phone.username, used.code);
      expectProblem((await redeem(n3, phone.username, used.code)).res, 422, 'join_code_invalid');
      const voided = await issueCode(n1, phone);
      let fresh = await issueCode(n2, phone);
      while (fresh.code === voided.code) fresh = await issueCode(n2, phone);
      expectProblem((await redeem(n3, phone.username, voided.code)).res, 422, 'join_code_invalid');
      await redeemOk(n1, phone.username, fresh.code);
    });

    it('concurrent redeems of one code on three nodes: exactly one wins', async () => {
      const phone = await n1.signUp(uniqueName('nodes'));
      const { code } = await issueCode(n1, phone);
      const results = await Promise.all([n1, n2, n3, n1, n2, n3].map((node) => redeem(node, phone.username, code)));
      assert.deepEqual(results.map((r) => r.res.status).sort(), [201, 422, 422, 422, 422, 422]);
      const attempts = await t.store.handle.db.selectFrom('join_attempts').select('id').where('account_id', '=', phone.accountId).execute();
      assert.equal(attempts.length, 1);
    });

    it('concurrent finishes of one attempt on three nodes: exactly one session', async () => {
      const phone = await n1.signUp(uniqueName('nodes'));
      const { code } = await issueCode(n1, phone);
      const { attemptId, key } = await redeemOk(n1, phone.username, code);
      const approved = await n1.as(phone, 'POST', `${JOIN}/approve`, { body: { attempt_id: attemptId }, headers: { 'vid-step-up': await stepUp(n1, phone), 'idempotency-key': randomUUID() } });
      assert.equal(approved.status, 200);
      const results = await Promise.all([n1, n2, n3].map((node) => finishEphemeral(node, key, attemptId)));
      assert.deepEqual(results.map((r) => r.status).sort(), [200, 409, 409]);
      const sessions = await t.store.handle.db.selectFrom('sessions').select('id').where('account_id', '=', phone.accountId).where('jkt', '=', key.jkt).execute();
      assert.equal(sessions.length, 1);
    });

    it('a persist finish raced on two nodes stores exactly one passkey', async () => {
      const phone = await n1.signUp(uniqueName('nodes'));
      const { code } = await issueCode(n1, phone);
      const { attemptId, key } = await redeemOk(n2, phone.username, code);
      const approved = await n3.as(phone, 'POST', `${JOIN}/approve`, { body: { attempt_id: attemptId }, headers: { 'vid-step-up': await stepUp(n3, phone), 'idempotency-key': randomUUID() } });
      assert.equal(approved.status, 200);
      const options = await n1.call('POST', `${JOIN}/register-options`, { body: { attempt_id: attemptId }, key });
      const credential = await new SoftwareAuthenticator().createCredential(options.body.options, n1.publicOrigin);
      const before = await passkeyCount(t.store, phone.accountId);
      const results = await Promise.all([n2, n3].map((node) => node.call('POST', `${JOIN}/finish`, { body: { attempt_id: attemptId, persist_device: true, credential }, key, headers: { 'idempotency-key': randomUUID() } })));
      assert.deepEqual(results.map((r) => r.status).sort(), [200, 409], JSON.stringify(results.map((r) => r.body)));
      assert.equal(await passkeyCount(t.store, phone.accountId), before + 1);
    });
  });
}
