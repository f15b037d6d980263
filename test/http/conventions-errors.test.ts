// PRODUCT §0 / STANDARDS "Problem details": every failure is an RFC 9457 problem document with our
// extension members, and every response carries VID-Request-Id and VID-API-Version.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { uniqueName } from '../helpers/client.js';
import type { CallResult } from '../helpers/client.js';
import { expectProblem } from '../helpers/problem.js';

const CHECK = '/api/v1/auth/username/check';
const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{8,64}$/;
const SEMVER = /^\d+\.\d+\.\d+$/;
// Stack frames, file positions, SQL and driver/library names have no place in a response body.
const LEAK = /(\n\s+at\s|\bat [\w.<>]+ \(|node_modules|\.[cm]?[jt]s:\d+|\bselect\b[\s\S]*\bfrom\b|\binsert into\b|\bupdate \w+ set\b|sqlite|postgres|kysely|ajv|fastify|FST_|\bstack\b)/i;

/** The whole envelope: content type, members, status mirror, request id, version header, no internals. */
/** The shared refusal checks, and this suite's: the whole document (type a URI, title, detail), the API version, no leak. */
function expectProblemDocument(res: CallResult, status: number, code: string): void {
  const body = expectProblem(res, status, code);
  assert.equal(typeof body.type, 'string');
  assert.doesNotThrow(() => new URL(body.type as string), 'type is a URI');
  assert.equal(typeof body.title, 'string');
  assert.ok((body.title as string).length > 0);
  assert.equal(typeof body.detail, 'string');
  assert.ok((body.detail as string).length > 0);
  assert.match(res.headers.get('vid-api-version') ?? '', SEMVER);
  assert.doesNotMatch(JSON.stringify(body), LEAK);
}

for (const backend of backends) {
  describe(`conventions: problem details and request ids [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend);
    });
    after(() => t.close());

    it('answers malformed JSON with 400 invalid_json', async () => {
      const truncated = await t.client.call('POST', CHECK, { rawBody: '{"username": "abc"', headers: { 'content-type': 'application/json' } });
      expectProblemDocument(truncated, 400, 'invalid_json');
      const garbage = await t.client.call('POST', CHECK, { rawBody: "{username: 'abc'}", headers: { 'content-type': 'application/json' } });
      expectProblemDocument(garbage, 400, 'invalid_json');
      const empty = await t.client.call('POST', CHECK, { rawBody: '', headers: { 'content-type': 'application/json' } });
      expectProblemDocument(empty, 400, 'invalid_json');
    });

    it('answers a body that is not application/json with 415 unsupported_media_type', async () => {
      const xml = await t.client.call('POST', CHECK, { rawBody: '<username>abc</username>', headers: { 'content-type': 'application/xml' } });
      expectProblemDocument(xml, 415, 'unsupported_media_type');
      const form = await t.client.call('POST', CHECK, { rawBody: 'username=abcdef', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expectProblemDocument(form, 415, 'unsupported_media_type');
    });

    it('answers a text/plain body with 415 unsupported_media_type too (every JSON body is application/json)', async () => {
      const text = await t.client.call('POST', CHECK, { rawBody: '{"username":"abcdef"}', headers: { 'content-type': 'text/plain' } });
      expectProblemDocument(text, 415, 'unsupported_media_type');
    });

    it('answers an unknown member with 400 validation_failed naming its path', async () => {
      const res = await t.client.call('POST', CHECK, { body: { username: uniqueName('extra'), nickname: 'x' } });
      expectProblemDocument(res, 400, 'validation_failed');
      assert.ok(Array.isArray(res.body.errors));
      const entry = res.body.errors.find((e: { path: string }) => e.path === '/nickname');
      assert.ok(entry, `errors name /nickname: ${JSON.stringify(res.body.errors)}`);
      assert.equal(typeof entry.code, 'string');
      assert.equal(typeof entry.message, 'string');
    });

    it('answers a member of the wrong type, or a missing one, with 400 validation_failed naming /username', async () => {
      const wrongType = await t.client.call('POST', CHECK, { body: { username: 42 } });
      expectProblemDocument(wrongType, 400, 'validation_failed');
      assert.deepEqual(
        wrongType.body.errors.map((e: { path: string }) => e.path),
        ['/username'],
      );
      for (const e of wrongType.body.errors) {
        assert.equal(typeof e.code, 'string');
        assert.equal(typeof e.message, 'string');
      }
      const missing = await t.client.call('POST', CHECK, { body: {} });
      expectProblemDocument(missing, 400, 'validation_failed');
      assert.ok(missing.body.errors.some((e: { path: string }) => e.path === '/username'), JSON.stringify(missing.body.errors));
      const notAnObject = await t.client.call('POST', CHECK, { body: ['abcdef'] });
      expectProblemDocument(notAnObject, 400, 'validation_failed');
      assert.ok(notAnObject.body.errors.length >= 1);
    });

    it('answers validation failures on authenticated routes the same way', async () => {
      const device = await t.client.signUp(uniqueName('val'));
      const res = await t.client.as(device, 'PATCH', '/api/v1/me', { body: { display_name: 5 }, headers: { 'if-match': '"1"' } });
      expectProblemDocument(res, 400, 'validation_failed');
      assert.ok(res.body.errors.some((e: { path: string }) => e.path === '/display_name'), JSON.stringify(res.body.errors));
      const unknown = await t.client.as(device, 'PATCH', '/api/v1/me', { body: { username: 'takeover' }, headers: { 'if-match': '"1"' } });
      expectProblemDocument(unknown, 400, 'validation_failed');
      assert.ok(unknown.body.errors.some((e: { path: string }) => e.path === '/username'), JSON.stringify(unknown.body.errors));
    });

    it('answers an unknown route with 404 not_found', async () => {
      const res = await t.client.call('GET', '/api/v1/no-such-thing', { unchecked: true });
      expectProblemDocument(res, 404, 'not_found');
      const outside = await t.client.call('POST', '/nowhere?token=secret', { body: { a: 1 }, unchecked: true });
      expectProblemDocument(outside, 404, 'not_found');
      assert.doesNotMatch(JSON.stringify(outside.body), /secret/);
    });

    it('answers a missing token with a 401 problem, not a stack trace', async () => {
      const res = await t.client.call('GET', '/api/v1/me');
      expectProblemDocument(res, 401, 'unauthenticated');
      assert.ok(res.headers.get('www-authenticate')?.startsWith('DPoP'));
    });

    it('echoes a safe client VID-Request-Id on success and on errors', async () => {
      const id = 'client.req_ID-0001';
      const ok = await t.client.call('POST', CHECK, { body: { username: uniqueName('rid') }, headers: { 'vid-request-id': id } });
      assert.equal(ok.status, 200);
      assert.equal(ok.headers.get('vid-request-id'), id);
      const bad = await t.client.call('POST', CHECK, { body: { username: 1 }, headers: { 'vid-request-id': id } });
      expectProblemDocument(bad, 400, 'validation_failed');
      assert.equal(bad.headers.get('vid-request-id'), id);
      assert.equal(bad.body.request_id, id);
      for (const edge of ['a'.repeat(8), 'b'.repeat(64)]) {
        const res = await t.client.call('GET', '/api/v1/no-such-thing', { headers: { 'vid-request-id': edge }, unchecked: true });
        assert.equal(res.headers.get('vid-request-id'), edge);
        assert.equal(res.body.request_id, edge);
      }
    });

    it('replaces an unsafe client VID-Request-Id with one of its own', async () => {
      const unsafe = ['short', 'c'.repeat(65), 'has spaces in it', '<script>x</script>', 'line;drop table', 'ünïcödé-id-123', 'a/b/c/d/e/f'];
      const seen = new Set<string>();
      for (const sent of unsafe) {
        const res = await t.client.call('GET', '/api/v1/no-such-thing', { headers: { 'vid-request-id': sent }, unchecked: true });
        expectProblemDocument(res, 404, 'not_found');
        const got = res.headers.get('vid-request-id') as string;
        assert.notEqual(got, sent);
        assert.match(got, SAFE_REQUEST_ID);
        assert.equal(res.body.request_id, got);
        seen.add(got);
      }
      assert.equal(seen.size, unsafe.length, 'generated ids are unique');
    });

    it('gives every request its own id when the client sends none', async () => {
      const a = await t.client.call('POST', CHECK, { body: { username: uniqueName('a') } });
      const b = await t.client.call('POST', CHECK, { body: { username: uniqueName('b') } });
      const ida = a.headers.get('vid-request-id');
      const idb = b.headers.get('vid-request-id');
      assert.match(ida ?? '', SAFE_REQUEST_ID);
      assert.match(idb ?? '', SAFE_REQUEST_ID);
      assert.notEqual(ida, idb);
    });

    it('sends VID-API-Version on every response, errors and probes included', async () => {
      const responses = [
        await t.client.call('POST', CHECK, { body: { username: uniqueName('v') } }),
        await t.client.call('POST', CHECK, { body: { nope: true } }),
        await t.client.call('POST', CHECK, { rawBody: '{', headers: { 'content-type': 'application/json' } }),
        await t.client.call('GET', '/api/v1/me'),
        await t.client.call('GET', '/api/v1/openapi.json', { unchecked: true }),
        await t.client.call('GET', '/api/v1/missing', { unchecked: true }),
        await t.client.call('GET', '/health/live', { unchecked: true }),
        await t.client.call('GET', '/health/ready', { unchecked: true }),
      ];
      const version = responses[0]!.headers.get('vid-api-version');
      assert.match(version ?? '', SEMVER);
      for (const res of responses) {
        assert.equal(res.headers.get('vid-api-version'), version, `status ${res.status}`);
        assert.match(res.headers.get('vid-request-id') ?? '', SAFE_REQUEST_ID, `status ${res.status}`);
      }
    });
  });

  describe(`conventions: body size limit [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(backend, { BODY_LIMIT_BYTES: '1024' });
    });
    after(() => t.close());

    it('answers a body over BODY_LIMIT_BYTES with 413 payload_too_large and accepts one under it', async () => {
      const small = await t.client.call('POST', CHECK, { body: { username: uniqueName('small') } });
      assert.equal(small.status, 200);
      const big = await t.client.call('POST', CHECK, { rawBody: JSON.stringify({ username: 'a'.repeat(2000) }), headers: { 'content-type': 'application/json' } });
      expectProblemDocument(big, 413, 'payload_too_large');
      const justOver = JSON.stringify({ username: 'b'.repeat(1025 - '{"username":""}'.length) });
      assert.equal(Buffer.byteLength(justOver), 1025);
      const over = await t.client.call('POST', CHECK, { rawBody: justOver, headers: { 'content-type': 'application/json' } });
      expectProblemDocument(over, 413, 'payload_too_large');
    });
  });
}
