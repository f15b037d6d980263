// PRODUCT §2: the public field catalog, cacheable with ETag / If-None-Match (RFC 9110 §13.1.2),
// and POST /field-types/{key}/validate with real-world values from many countries.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { expectProblem } from '../helpers/problem.js';

const BASE = '/api/v1/field-types';

// Real addresses and numbers; [country, value, valid?, code when refused].
const PHONES: [string, string, string | null][] = [
  ['DE', '030 22732152', '+493022732152'],
  ['GB', '020 7930 4832', '+442079304832'],
  ['US', '(202) 456-1111', '+12024561111'],
  ['FR', '01 42 92 81 00', '+33142928100'],
  ['JP', '03-3433-5111', '+81334335111'],
  ['IN', '98765 43210', '+919876543210'],
  ['BR', '(11) 91234-5678', '+5511912345678'],
  ['AU', '(02) 9250 7111', '+61292507111'],
  ['NG', '0803 123 4567', '+2348031234567'],
  ['ZA', '021 405 4200', '+27214054200'],
  ['GB', '07700 900123', null],
  ['US', '(123) 456-7890', null],
  ['JP', '090-1234-567', null],
  ['BR', '(11) 1234-5678', null],
  ['AU', '0412 345', null],
  ['NG', '0803 123', null],
];
const ADDRESSES: [string, Record<string, unknown>, string | null][] = [
  ['US', { street_lines: ['1600 Pennsylvania Avenue NW'], locality: 'Washington', region: 'DC', postal_code: '20500' }, null],
  ['GB', { street_lines: ['10 Downing Street'], locality: 'London', postal_code: 'SW1A 2AA' }, null],
  ['DE', { street_lines: ['Platz der Republik 1'], locality: 'Berlin', postal_code: '11011' }, null],
  ['FR', { street_lines: ['55 Rue du Faubourg Saint-Honoré'], locality: 'Paris', postal_code: '75008' }, null],
  ['JP', { street_lines: ['1-1 Chiyoda'], locality: 'Chiyoda-ku', region: 'Tokyo', postal_code: '100-8111' }, null],
  ['CA', { street_lines: ['111 Wellington Street'], locality: 'Ottawa', region: 'ON', postal_code: 'K1A 0A9' }, null],
  ['BR', { street_lines: ['Praça dos Três Poderes'], locality: 'Brasília', region: 'DF', postal_code: '70150-900' }, null],
  ['IN', { street_lines: ['Rashtrapati Bhavan'], locality: 'New Delhi', region: 'Delhi', postal_code: '110004' }, null],
  ['AU', { street_lines: ['Bennelong Point'], locality: 'Sydney', region: 'NSW', postal_code: '2000' }, null],
  ['NL', { street_lines: ['Museumstraat 1'], locality: 'Amsterdam', postal_code: '1071 XX' }, null],
  ['US', { street_lines: ['1600 Pennsylvania Avenue NW'], locality: 'Washington', region: 'DC', postal_code: '2050' }, 'postal_code_pattern'],
  ['GB', { street_lines: ['10 Downing Street'], locality: 'London', postal_code: 'SW1A' }, 'postal_code_pattern'],
  ['DE', { street_lines: ['Platz der Republik 1'], locality: 'Berlin' }, 'address_part_required'],
  ['JP', { street_lines: ['1-1 Chiyoda'], postal_code: '100-8111' }, 'address_part_required'],
  ['CA', { street_lines: ['111 Wellington Street'], locality: 'Ottawa', region: 'ON', postal_code: '111 111' }, 'postal_code_pattern'],
  ['IN', { street_lines: ['Rashtrapati Bhavan'], locality: 'New Delhi', region: 'Delhi', postal_code: '11004' }, 'postal_code_pattern'],
];

for (const backend of backends) {
  describe(`field catalog [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend);
    });
    after(() => t.close());

    it('serves the catalog publicly with an ETag and Cache-Control, and 304 to If-None-Match', async () => {
      const res = await t.client.call('GET', BASE);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('cache-control'), 'public, max-age=3600');
      const etag = res.headers.get('etag')!;
      assert.match(etag, /^"[A-Za-z0-9_-]+"$/);
      assert.equal(res.body.has_more, false);
      assert.equal(res.body.next_cursor, null);
      const keys = res.body.data.map((type: { key: string }) => type.key);
      for (const key of ['name', 'nickname', 'phone', 'email', 'postal_address', 'birthday', 'url', 'social', 'organization', 'job_title', 'pronouns', 'language', 'time_zone', 'note']) assert.ok(keys.includes(key), key);
      const address = res.body.data.find((type: { key: string }) => type.key === 'postal_address');
      assert.equal(address.country, 'required');
      assert.deepEqual(address.countries.US.required, ['street_lines', 'locality', 'region', 'postal_code']);
      assert.equal(address.countries.US.postal_code.label, 'ZIP code');
      assert.equal(address.countries.HK.postal_code, null);

      for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
        const cached = await t.client.call('GET', BASE, { headers: { 'if-none-match': header } });
        assert.equal(cached.status, 304, header);
        assert.equal(cached.body, null);
        assert.equal(cached.headers.get('etag'), etag);
        assert.equal(cached.headers.get('cache-control'), 'public, max-age=3600');
      }
      const stale = await t.client.call('GET', BASE, { headers: { 'if-none-match': '"stale"' } });
      assert.equal(stale.status, 200);
    });

    it('serves one type with its per-country rules, cacheable too; unknown keys are 404', async () => {
      const res = await t.client.call('GET', `${BASE}/phone`);
      assert.equal(res.status, 200);
      assert.equal(res.body.schema_version, 1);
      assert.equal(res.body.multiple, true);
      assert.equal(res.body.countries.DE.calling_code, '49');
      assert.equal(res.body.value_schema.type, 'string');
      const cached = await t.client.call('GET', `${BASE}/phone`, { headers: { 'if-none-match': res.headers.get('etag')! } });
      assert.equal(cached.status, 304);
      const social = await t.client.call('GET', `${BASE}/social`);
      assert.ok(social.body.platforms.some((p: { key: string }) => p.key === 'github'));
      const zones = await t.client.call('GET', `${BASE}/time_zone`);
      assert.ok(zones.body.values.includes('Europe/Berlin'));
      expectProblem(await t.client.call('GET', `${BASE}/fax`), 404, 'field_type_not_found');
    });

    it('validates phone numbers of ten countries, valid and invalid, without an account', async () => {
      for (const [country, value, e164] of PHONES) {
        const res = await t.client.call('POST', `${BASE}/phone/validate`, { body: { value, country } });
        assert.equal(res.status, 200);
        assert.equal(res.body.valid, e164 !== null, `${country} ${value}: ${JSON.stringify(res.body)}`);
        if (e164) {
          assert.equal(res.body.normalized, e164);
          assert.equal(res.body.country, country);
          assert.equal(res.body.original, value);
          assert.ok(res.body.details.line_type);
        } else {
          assert.equal(res.body.normalized, null);
          assert.equal(res.body.errors[0].path, '/value');
          assert.match(res.body.errors[0].code, /^phone_/);
        }
      }
    });

    it('validates postal addresses of ten countries, naming the path and the rule', async () => {
      for (const [country, value, code] of ADDRESSES) {
        const res = await t.client.call('POST', `${BASE}/postal_address/validate`, { body: { value, country } });
        assert.equal(res.status, 200);
        assert.equal(res.body.valid, code === null, `${country} ${JSON.stringify(value)}: ${JSON.stringify(res.body)}`);
        if (code) assert.ok(res.body.errors.some((e: { code: string; path: string }) => e.code === code && e.path.startsWith('/value/')), JSON.stringify(res.body.errors));
        else assert.match(res.body.details.formatted, new RegExp(res.body.normalized.locality.toUpperCase().slice(0, 3), 'i'));
      }
    });

    it('answers request-level refusals as problems with stable codes', async () => {
      const address = { street_lines: ['Platz der Republik 1'], locality: 'Berlin', postal_code: '11011' };
      expectProblem(await t.client.call('POST', `${BASE}/postal_address/validate`, { body: { value: address } }), 400, 'country_required');
      expectProblem(await t.client.call('POST', `${BASE}/postal_address/validate`, { body: { value: address, country: 'XX' } }), 400, 'invalid_country');
      expectProblem(await t.client.call('POST', `${BASE}/email/validate`, { body: { value: 'ada@example.org', country: 'GB' } }), 400, 'country_not_applicable');
      const big = await t.client.call('POST', `${BASE}/note/validate`, { body: { value: 'x'.repeat(5000) } });
      expectProblem(big, 413, 'field_value_too_large');
      assert.equal(big.body.errors[0].path, '/value');
      expectProblem(await t.client.call('POST', `${BASE}/fax/validate`, { body: { value: '+49 30 1234567' } }), 404, 'field_type_not_found');
      expectProblem(await t.client.call('POST', `${BASE}/phone/validate`, { body: { number: '+49 30 1234567' } }), 400, 'validation_failed');
      const shape = await t.client.call('POST', `${BASE}/birthday/validate`, { body: { value: { year: 1990, month: 13, day: 1 } } });
      assert.equal(shape.status, 200);
      assert.deepEqual(shape.body.errors, [{ path: '/value/month', code: 'maximum', message: 'must be <= 12' }]);
    });
  });
}
