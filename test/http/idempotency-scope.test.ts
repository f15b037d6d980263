// PRODUCT §0 Idempotency-Key: scoped to the concrete URL and the principal (not the route's
// pattern), fingerprinted by the body's meaning (not its bytes), accepted on every unsafe write,
// and required on the join and recovery writes whose retry must not run twice.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { SoftwareAuthenticator } from '../helpers/authenticator.js';
import { uniqueName } from '../helpers/client.js';
import type { Device } from '../helpers/client.js';
import { JOIN, RELAXED_JOIN_LIMITS, issueCode } from '../helpers/join.js';
import { expectProblem } from '../helpers/problem.js';

const FIELDS = '/api/v1/me/fields';

for (const backend of backends) {
  describe(`Idempotency-Key scope and meaning [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend, RELAXED_JOIN_LIMITS);
    });
    after(() => t.close());

    async function field(device: Device, value: string): Promise<{ id: string; version: number }> {
      const res = await t.client.as(device, 'POST', FIELDS, { body: { type: 'nickname', value }, headers: { 'idempotency-key': randomUUID() } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body;
    }

    it('scopes a key to the concrete URL: f1\'s key on PATCH /me/fields/f2 changes f2, not a replay of f1', async () => {
      const device = await t.client.signUp(uniqueName('scope'));
      const [f1, f2] = [await field(device, 'one'), await field(device, 'two')];
      const key = randomUUID();
      const body = { label: 'same body' };
      const first = await t.client.as(device, 'PATCH', `${FIELDS}/${f1.id}`, { body, headers: { 'idempotency-key': key, 'if-match': `"${f1.version}"` } });
      assert.equal(first.status, 200);
      const second = await t.client.as(device, 'PATCH', `${FIELDS}/${f2.id}`, { body, headers: { 'idempotency-key': key, 'if-match': `"${f2.version}"` } });
      assert.equal(second.status, 200, JSON.stringify(second.body));
      assert.equal(second.headers.get('vid-idempotent-replay'), null);
      assert.equal(second.body.id, f2.id);
      const read = await t.client.as(device, 'GET', `${FIELDS}/${f2.id}`);
      assert.equal(read.body.label, 'same body');
    });

    it('one key, however the URL or the key is written: a query member the route does not read, percent-encoding, capitals', async () => {
      const device = await t.client.signUp(uniqueName('spelling'));
      const count = async () => (await t.client.as(device, 'GET', FIELDS)).body.data.length as number;
      const key = randomUUID();
      const body = { type: 'nickname', value: 'Once' };
      const first = await t.client.as(device, 'POST', FIELDS, { body, headers: { 'idempotency-key': key } });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      for (const [path, written] of [[`${FIELDS}?x=1`, key], ['/api/v1/%6De/fields', key], [FIELDS, key.toUpperCase()]] as const) {
        // unchecked: the contract checker matches paths as written, not decoded.
        const retry = await t.client.as(device, 'POST', path, { body, headers: { 'idempotency-key': written }, unchecked: true });
        assert.equal(retry.status, 201, `${path} ${written}: ${JSON.stringify(retry.body)}`);
        assert.equal(retry.headers.get('vid-idempotent-replay'), 'true', `${path} ${written}`);
        assert.equal(retry.body.id, first.body.id);
      }
      assert.equal(await count(), 1, 'one field');

      // A path parameter written with %66 for f is the same field, so the same scope.
      const f = first.body as { id: string; version: number };
      const patchKey = randomUUID();
      const patch = (path: string) => t.client.as(device, 'PATCH', path, { body: { label: 'Home' }, headers: { 'idempotency-key': patchKey, 'if-match': `"${f.version}"` }, unchecked: true });
      assert.equal((await patch(`${FIELDS}/${f.id}`)).status, 200);
      const encoded = await patch(`${FIELDS}/%${f.id.charCodeAt(0).toString(16)}${f.id.slice(1)}`);
      assert.equal(encoded.status, 200, JSON.stringify(encoded.body));
      assert.equal(encoded.headers.get('vid-idempotent-replay'), 'true');
    });

    it('replays a retried sign-up (register/finish), scoped to the DPoP key before there is an account', async () => {
      const username = uniqueName('signup');
      const authenticator = new SoftwareAuthenticator();
      const begin = await t.client.call('POST', '/api/v1/auth/register/begin', { body: { username } });
      const credential = await authenticator.createCredential(begin.body.options, t.client.publicOrigin);
      const key = await t.client.newKey();
      const request = { body: { ceremony_id: begin.body.ceremony_id, username, credential }, key, headers: { 'idempotency-key': randomUUID() } };
      const first = await t.client.call('POST', '/api/v1/auth/register/finish', request);
      assert.equal(first.status, 201, JSON.stringify(first.body));
      const retry = await t.client.call('POST', '/api/v1/auth/register/finish', request);
      assert.equal(retry.status, 201, JSON.stringify(retry.body));
      assert.equal(retry.headers.get('vid-idempotent-replay'), 'true');
      assert.deepEqual(retry.body, first.body, 'the same account and tokens');
      // Another device's key with the same Idempotency-Key is another principal: the spent ceremony refuses it.
      const other = await t.client.call('POST', '/api/v1/auth/register/finish', { ...request, key: await t.client.newKey() });
      expectProblem(other, 400, 'ceremony_invalid');
    });

    it('fingerprints the body by its meaning: the same members in another order replay', async () => {
      const device = await t.client.signUp(uniqueName('canon'));
      const key = randomUUID();
      const first = await t.client.as(device, 'POST', FIELDS, { rawBody: '{"type":"nickname","value":"Ordered","label":"x"}', headers: { 'content-type': 'application/json', 'idempotency-key': key } });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      const again = await t.client.as(device, 'POST', FIELDS, { rawBody: '{ "label": "x", "value": "Ordered", "type": "nickname" }', headers: { 'content-type': 'application/json', 'idempotency-key': key } });
      assert.equal(again.status, 201, JSON.stringify(again.body));
      assert.equal(again.headers.get('vid-idempotent-replay'), 'true');
      assert.deepEqual(again.body, first.body);
      const other = await t.client.as(device, 'POST', FIELDS, { rawBody: '{"type":"nickname","value":"Other","label":"x"}', headers: { 'content-type': 'application/json', 'idempotency-key': key } });
      expectProblem(other, 409, 'idempotency_key_reused');
    });

    it('accepts a key on every unsafe write: a retried DELETE replays its 204 instead of answering 404', async () => {
      const device = await t.client.signUp(uniqueName('delete'));
      const f = await field(device, 'gone');
      const key = randomUUID();
      const headers = { 'idempotency-key': key, 'if-match': `"${f.version}"` };
      const first = await t.client.as(device, 'DELETE', `${FIELDS}/${f.id}`, { headers });
      assert.equal(first.status, 204);
      const retry = await t.client.as(device, 'DELETE', `${FIELDS}/${f.id}`, { headers });
      assert.equal(retry.status, 204);
      assert.equal(retry.headers.get('vid-idempotent-replay'), 'true');
    });

    it('replays a join redeem retried after a dropped answer: the same attempt, not 422 join_code_invalid', async () => {
      const phone = await t.client.signUp(uniqueName('redeem'));
      const { code } = await issueCode(t.client, phone);
      const key = await t.client.newKey();
      const headers = { 'idempotency-key': randomUUID() };
      const first = await t.client.call('POST', `${JOIN}/redeem`, { body: { username: phone.username, code }, key, headers });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      const retry = await t.client.call('POST', `${JOIN}/redeem`, { body: { username: phone.username, code }, key, headers });
      assert.equal(retry.status, 201, JSON.stringify(retry.body));
      assert.equal(retry.body.attempt_id, first.body.attempt_id);
      assert.equal(retry.headers.get('vid-idempotent-replay'), 'true');
    });

    it('opens one attempt for a retried join start', async () => {
      const phone = await t.client.signUp(uniqueName('start'));
      const key = await t.client.newKey();
      const headers = { 'idempotency-key': randomUUID() };
      const first = await t.client.call('POST', `${JOIN}/start`, { body: { username: phone.username }, key, headers });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      const retry = await t.client.call('POST', `${JOIN}/start`, { body: { username: phone.username }, key, headers });
      assert.equal(retry.body.attempt_id, first.body.attempt_id);
    });

    it('requires a key on join issue, redeem and start, on recovery finish and on a join finish that stores a passkey', async () => {
      const phone = await t.client.signUp(uniqueName('required'));
      expectProblem(await t.client.as(phone, 'POST', `${JOIN}/issue`), 400, 'idempotency_key_required');
      const key = await t.client.newKey();
      expectProblem(await t.client.call('POST', `${JOIN}/redeem`, { body: { username: phone.username, code: '123456' }, key }), 400, 'idempotency_key_required');
      expectProblem(await t.client.call('POST', `${JOIN}/start`, { body: { username: phone.username }, key }), 400, 'idempotency_key_required');
      const credential = { id: 'x', rawId: 'x', type: 'public-key', response: { clientDataJSON: 'x', attestationObject: 'x' }, clientExtensionResults: {} };
      expectProblem(await t.client.call('POST', `${JOIN}/finish`, { body: { attempt_id: 'att_x', persist_device: true, credential }, key, unchecked: true }), 400, 'idempotency_key_required');
      expectProblem(await t.client.call('POST', '/api/v1/auth/recovery/finish', { body: { ceremony_id: 'cer_x', credential }, key, unchecked: true }), 400, 'idempotency_key_required');
    });
  });
}
