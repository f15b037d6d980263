// PRODUCT §2: /me/fields — list (cursor), create (Idempotency-Key), get, update and delete
// (If-Match); values judged by the catalog and stored normalised; limits; bad input writes nothing.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../src/platform/ids.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';
import type { CallResult, Device } from '../helpers/client.js';
import { fieldQueries } from '../../src/modules/fields/queries.js';
import { expectProblem } from '../helpers/problem.js';

const FIELDS = '/api/v1/me/fields';
const BERLIN = { street_lines: ['Platz der Republik 1'], locality: 'Berlin', postal_code: '11011' };

for (const backend of backends) {
  describe(`identity fields /me/fields [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend);
    });
    after(() => t.close());

    const create = (device: Device, body: unknown, key: string = randomUUID()) =>
      t.client.as(device, 'POST', FIELDS, { body, headers: { 'idempotency-key': key } });

    /** What the store holds for the account: fields and fields.changed signals. */
    async function stored(device: Device): Promise<{ fields: number; signals: number }> {
      const db = t.store.handle.db;
      const fields = await db.selectFrom('fields').select('id').where('account_id', '=', device.accountId).execute();
      const signals = await db.selectFrom('events').select('seq').where('account_id', '=', device.accountId).where('kind', '=', 'fields.changed').execute();
      return { fields: fields.length, signals: signals.length };
    }

    it('creates, reads, updates and deletes a field, with ETags, If-Match and a signal per change', async () => {
      const device = await t.client.signUp(uniqueName('fields'));
      const created = await create(device, { type: 'phone', label: ' work ', value: '030 22732152', country: 'de' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const field = created.body;
      assert.match(field.id, /^fld_/);
      assert.equal(field.value, '+493022732152');
      assert.equal(field.original, '030 22732152');
      assert.equal(field.country, 'DE');
      assert.equal(field.label, 'work');
      assert.equal(field.details.line_type, 'fixed_line');
      assert.equal(field.version, 1);
      assert.equal(field.schema_version, 1);
      assert.equal(created.headers.get('etag'), '"1"');
      assert.equal(created.headers.get('location'), `${FIELDS}/${field.id}`);

      const read = await t.client.as(device, 'GET', `${FIELDS}/${field.id}`);
      assert.equal(read.status, 200);
      assert.deepEqual(read.body, field);
      assert.equal(read.headers.get('etag'), '"1"');

      const patched = await t.client.as(device, 'PATCH', `${FIELDS}/${field.id}`, { body: { value: '+44 20 7930 4832', label: null }, headers: { 'if-match': '"1"' } });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      assert.equal(patched.body.value, '+442079304832');
      assert.equal(patched.body.country, 'GB');
      assert.equal(patched.body.label, null);
      assert.equal(patched.body.version, 2);
      assert.equal(patched.headers.get('etag'), '"2"');

      expectProblem(await t.client.as(device, 'DELETE', `${FIELDS}/${field.id}`), 428, 'precondition_required');
      expectProblem(await t.client.as(device, 'DELETE', `${FIELDS}/${field.id}`, { headers: { 'if-match': '"1"' } }), 412, 'version_mismatch');
      const deleted = await t.client.as(device, 'DELETE', `${FIELDS}/${field.id}`, { headers: { 'if-match': '"2"' } });
      assert.equal(deleted.status, 204);
      expectProblem(await t.client.as(device, 'GET', `${FIELDS}/${field.id}`), 404, 'field_not_found');
      assert.deepEqual(await stored(device), { fields: 0, signals: 3 });
    });

    it('replays a create with the same Idempotency-Key and requires one', async () => {
      const device = await t.client.signUp(uniqueName('fieldik'));
      const key = randomUUID();
      const body = { type: 'email', value: 'Ada@Example.ORG' };
      const first = await create(device, body, key);
      assert.equal(first.status, 201);
      const again = await create(device, body, key);
      assert.equal(again.status, 201);
      assert.equal(again.headers.get('vid-idempotent-replay'), 'true');
      assert.deepEqual(again.body, first.body);
      assert.equal(again.headers.get('location'), first.headers.get('location'));
      expectProblem(await create(device, { type: 'email', value: 'bob@example.org' }, key), 409, 'idempotency_key_reused');
      expectProblem(await t.client.as(device, 'POST', FIELDS, { body }), 400, 'idempotency_key_required');
      assert.deepEqual(await stored(device), { fields: 1, signals: 1 });
    });

    it('lists fields in creation order with a cursor, optionally by type', async () => {
      const device = await t.client.signUp(uniqueName('fieldlist'));
      const ids: string[] = [];
      for (const value of ['one@example.org', 'two@example.org', 'three@example.org']) {
        ids.push((await create(device, { type: 'email', value })).body.id);
        t.clock.advance(1);
      }
      ids.push((await create(device, { type: 'url', value: 'example.org/ada' })).body.id);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: CallResult = await t.client.as(device, 'GET', `${FIELDS}?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
        assert.equal(page.status, 200);
        seen.push(...page.body.data.map((f: { id: string }) => f.id));
        cursor = page.body.next_cursor;
        assert.equal(page.body.has_more, cursor !== null);
      } while (cursor);
      assert.deepEqual(seen, ids);
      const urls = await t.client.as(device, 'GET', `${FIELDS}?type=url`);
      assert.deepEqual(urls.body.data.map((f: { id: string }) => f.id), [ids[3]]);
      assert.equal(urls.body.data[0].value, 'https://example.org/ada');
      assert.equal(urls.body.data[0].original, 'example.org/ada');
      expectProblem(await t.client.as(device, 'GET', `${FIELDS}?type=fax`), 400, 'unknown_field_type');
      expectProblem(await t.client.as(device, 'GET', `${FIELDS}?cursor=garbage`), 400, 'invalid_cursor');
      expectProblem(await t.client.as(device, 'GET', `${FIELDS}?limit=201`), 400, 'validation_failed');
    });

    it('refuses bad input with stable codes and writes nothing', async () => {
      const device = await t.client.signUp(uniqueName('fieldbad'));
      const cases: [unknown, number, string, string?][] = [
        [{ type: 'fax', value: '+49 30 1234567' }, 400, 'unknown_field_type', '/type'],
        [{ type: 'postal_address', value: BERLIN, country: 'XX' }, 400, 'invalid_country', '/country'],
        [{ type: 'postal_address', value: BERLIN, country: 'UK' }, 400, 'invalid_country', '/country'],
        [{ type: 'postal_address', value: BERLIN }, 400, 'country_required', '/country'],
        [{ type: 'email', value: 'ada@example.org', country: 'GB' }, 400, 'country_not_applicable', '/country'],
        [{ type: 'phone', value: '030 22732152' }, 400, 'country_required', '/country'],
        [{ type: 'birthday', value: '1990-05-17' }, 400, 'validation_failed', '/value'],
        [{ type: 'name', value: { given: 'Ada', nickname: 'Countess' } }, 400, 'validation_failed', '/value/nickname'],
        [{ type: 'postal_address', value: { ...BERLIN, postal_code: '1101' }, country: 'DE' }, 400, 'validation_failed', '/value/postal_code'],
        [{ type: 'birthday', value: { year: 2999, month: 1, day: 1 } }, 400, 'validation_failed', '/value'],
        [{ type: 'email', value: 'ada@example.org', label: 'x\u0007' }, 400, 'validation_failed', '/label'],
        [{ type: 'note', value: 'x'.repeat(5000) }, 413, 'field_value_too_large', '/value'],
        [{ type: 'email' }, 400, 'validation_failed', '/value'],
      ];
      for (const [body, status, code, path] of cases) {
        const res = await create(device, body);
        expectProblem(res, status, code);
        if (path) assert.ok(res.body.errors?.some((e: { path: string }) => e.path === path), `${JSON.stringify(body)} -> ${JSON.stringify(res.body.errors)}`);
      }
      const pattern = await create(device, { type: 'postal_address', value: { ...BERLIN, postal_code: '1101' }, country: 'DE' });
      assert.deepEqual(pattern.body.errors.map((e: { code: string }) => e.code), ['postal_code_pattern']);
      assert.deepEqual(await stored(device), { fields: 0, signals: 0 });
    });

    it('takes the country from the account default, and a new country re-reads what was typed', async () => {
      const device = await t.client.signUp(uniqueName('fieldctry'));
      const me = await t.client.as(device, 'GET', '/api/v1/me');
      const set = await t.client.as(device, 'PATCH', '/api/v1/me', { body: { default_country: 'DE' }, headers: { 'if-match': me.headers.get('etag')! } });
      assert.equal(set.status, 200);
      const address = await create(device, { type: 'postal_address', label: 'office', value: BERLIN });
      assert.equal(address.status, 201, JSON.stringify(address.body));
      assert.equal(address.body.country, 'DE');
      assert.equal(address.body.details.formatted, 'Platz der Republik 1\n11011 Berlin\nGERMANY');
      const phone = await create(device, { type: 'phone', value: '0151 23456789' });
      assert.equal(phone.body.value, '+4915123456789');
      assert.equal(phone.body.details.line_type, 'mobile');

      // Austria's postal codes have four digits: the stored address does not fit there.
      const moved = await t.client.as(device, 'PATCH', `${FIELDS}/${address.body.id}`, { body: { country: 'AT' }, headers: { 'if-match': '"1"' } });
      expectProblem(moved, 400, 'validation_failed');
      assert.equal(moved.body.errors[0].code, 'postal_code_pattern');
      const vienna = { street_lines: ['Dr.-Karl-Renner-Ring 3'], locality: 'Wien', postal_code: '1017' };
      const ok = await t.client.as(device, 'PATCH', `${FIELDS}/${address.body.id}`, { body: { country: 'at', value: vienna }, headers: { 'if-match': '"1"' } });
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      assert.equal(ok.body.country, 'AT');
      assert.equal(ok.body.label, 'office');
      const relabel = await t.client.as(device, 'PATCH', `${FIELDS}/${address.body.id}`, { body: { label: 'Parliament' }, headers: { 'if-match': '"2"' } });
      assert.equal(relabel.body.label, 'Parliament');
      assert.deepEqual(relabel.body.value, vienna);
      expectProblem(await t.client.as(device, 'PATCH', `${FIELDS}/${address.body.id}`, { body: { type: 'email' }, headers: { 'if-match': '"3"' } }), 400, 'validation_failed');
      expectProblem(await t.client.as(device, 'PATCH', `${FIELDS}/${address.body.id}`, { body: { label: 'x' } }), 428, 'precondition_required');
      expectProblem(await t.client.as(device, 'PATCH', `${FIELDS}/${address.body.id}`, { body: { label: 'x' }, headers: { 'if-match': '"2"' } }), 412, 'version_mismatch');
      expectProblem(await t.client.as(device, 'PATCH', `${FIELDS}/${address.body.id}`, { body: { value: 'x'.repeat(5000) }, headers: { 'if-match': '"3"' } }), 413, 'field_value_too_large');
      const after = await t.client.as(device, 'GET', `${FIELDS}/${address.body.id}`);
      assert.equal(after.body.version, 3);
      assert.equal(after.body.label, 'Parliament');
    });

    it('answers another account\'s field id like an unknown one (404) and changes nothing', async () => {
      const owner = await t.client.signUp(uniqueName('fieldown'));
      const other = await t.client.signUp(uniqueName('fieldoth'));
      const field = (await create(owner, { type: 'nickname', value: 'Ada' })).body;
      expectProblem(await t.client.as(other, 'GET', `${FIELDS}/${field.id}`), 404, 'field_not_found');
      expectProblem(await t.client.as(other, 'PATCH', `${FIELDS}/${field.id}`, { body: { value: 'Mallory' }, headers: { 'if-match': '"1"' } }), 404, 'field_not_found');
      expectProblem(await t.client.as(other, 'DELETE', `${FIELDS}/${field.id}`, { headers: { 'if-match': '"1"' } }), 404, 'field_not_found');
      expectProblem(await t.client.as(other, 'GET', `${FIELDS}/${newId('fld')}`), 404, 'field_not_found');
      const still = await t.client.as(owner, 'GET', `${FIELDS}/${field.id}`);
      assert.equal(still.body.value, 'Ada');
      assert.equal(still.body.version, 1);
      assert.deepEqual(await stored(other), { fields: 0, signals: 0 });
      assert.equal((await t.client.call('GET', FIELDS)).status, 401);
    });

    it('allows one field of a single-valued type and at most 200 fields per account', async () => {
      const device = await t.client.signUp(uniqueName('fieldlim'));
      assert.equal((await create(device, { type: 'birthday', value: { month: 12, day: 10 } })).status, 201);
      expectProblem(await create(device, { type: 'birthday', value: { year: 1990, month: 12, day: 10 } }), 409, 'single_field_exists');
      // Fill up to 199 straight in the store, then the 200th through the API.
      const now = t.clock.now();
      for (let i = 1; i < 199; i++) {
        await t.store.use(fieldQueries).insert({
          id: newId('fld'), account_id: device.accountId, type: 'nickname', label: null, country: null,
          value: JSON.stringify(`nick${i}`), input: null, details: '{}', version: 1, created_at: now + i, updated_at: now + i,
        });
      }
      assert.equal((await create(device, { type: 'nickname', value: 'number 200' })).status, 201);
      const over = await create(device, { type: 'nickname', value: 'number 201' });
      expectProblem(over, 409, 'field_limit_reached');
      assert.equal((await stored(device)).fields, 200);
    });

    it('lets exactly one of concurrent creates of a single-valued type win', async () => {
      const device = await t.client.signUp(uniqueName('fieldrace'));
      const results = await Promise.all(['she/her', 'they/them', 'he/him', 'xe/xem', 'any'].map((value) => create(device, { type: 'pronouns', value })));
      assert.deepEqual(results.map((r) => r.status).sort(), [201, 409, 409, 409, 409]);
      for (const r of results) if (r.status === 409) assert.equal(r.body.code, 'single_field_exists');
      assert.deepEqual(await stored(device), { fields: 1, signals: 1 });
    });
  });
}
