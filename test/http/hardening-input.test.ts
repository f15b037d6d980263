// How request bodies are read, and what every answer carries (docs/decisions/130-json-bodies.md):
// a JSON body nested past the depth cap is 400 json_too_deep (RFC 8259 §9 lets a parser limit
// depth); bytes that are not UTF-8 and strings that are not well-formed Unicode are 400
// invalid_json (RFC 8259 §8.1, §8.2); none of them writes anything. Every answer, from a route,
// the error handler or the edge, carries X-Content-Type-Options: nosniff.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { uniqueName } from '../helpers/client.js';
import type { Device } from '../helpers/client.js';
import { openSse } from '../helpers/nodes.js';
import { expectProblem } from '../helpers/problem.js';

const FIELDS = '/api/v1/me/fields';
const VALIDATE = (key: string) => `/api/v1/field-types/${key}/validate`;
const CHECK = '/api/v1/auth/username/check';

interface Answer {
  status: number;
  header(name: string): string | null;
  text: string;
  body: any;
}

/** The shared refusal checks, and this suite's: a refusal of hostile input is never sniffed. */
function expectNosniffProblem(res: Answer, status: number, code: string): void {
  expectProblem(res, status, code);
  assert.equal(res.header('x-content-type-options'), 'nosniff');
}

function assertNosniff(res: { status: number; header(name: string): string | null }, what: string): void {
  assert.equal(res.header('x-content-type-options'), 'nosniff', `${what} (${res.status}) carries X-Content-Type-Options: nosniff`);
}

const nestedArrays = (levels: number, inner = '') => `${'['.repeat(levels)}${inner}${']'.repeat(levels)}`;
const nestedObjects = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

/** Bytes on a fresh connection, read until the server closes it. */
function exchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    let raw = '';
    const timer = setTimeout(() => socket.destroy(), 3000);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (raw += chunk));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(raw);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? undefined : reject(error)));
  });
}

/** The head of the first response in `raw`: its status and headers. */
function head(raw: string): { status: number; header(name: string): string | null } {
  const end = raw.indexOf('\r\n\r\n');
  assert.ok(end > 0, `a response head: ${JSON.stringify(raw.slice(0, 300))}`);
  const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
  const headers = new Map(lines.map((line) => [line.slice(0, line.indexOf(':')).trim().toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine!.split(' ')[1]), header: (name) => headers.get(name.toLowerCase()) ?? null };
}

for (const backend of backends) {
  describe(`hardening: request bodies and common headers [${backend.name}]`, { skip: backend.skip }, () => {
    let t: TestApp;
    let device: Device;
    before(async () => {
      t = await startTestApp(backend);
      device = await t.client.signUp(uniqueName('harden'));
    });
    after(() => t.close());

    /** A request with a body sent byte for byte (a JSON body unless told), signed for the device when given. */
    async function send(method: string, path: string, body: string | Buffer | undefined, options: { as?: Device; headers?: Record<string, string> } = {}): Promise<Answer> {
      const headers: Record<string, string> = { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers };
      if (options.as) {
        headers.authorization = `DPoP ${options.as.tokens.access_token}`;
        headers.dpop = await options.as.key.proof(method, t.client.publicOrigin + path.split('?')[0], { accessToken: options.as.tokens.access_token });
      }
      const response = await fetch(t.baseUrl + path, { method, headers, body: typeof body === 'string' || body === undefined ? body : new Uint8Array(body) });
      const text = await response.text();
      const type = response.headers.get('content-type') ?? '';
      return { status: response.status, header: (name) => response.headers.get(name), text, body: type.includes('json') && text ? JSON.parse(text) : text };
    }

    /** What the store holds for the account: fields and fields.changed signals. */
    async function stored(owner: Device): Promise<{ fields: unknown[]; signals: number }> {
      const db = t.store.handle.db;
      const fields = await db.selectFrom('fields').selectAll().where('account_id', '=', owner.accountId).orderBy('id').execute();
      const signals = await db.selectFrom('events').select('seq').where('account_id', '=', owner.accountId).where('kind', '=', 'fields.changed').execute();
      return { fields, signals: signals.length };
    }

    async function createNote(owner: Device, text: string): Promise<{ id: string }> {
      const res = await t.client.as(owner, 'POST', FIELDS, { body: { type: 'note', value: text }, headers: { 'idempotency-key': randomUUID() } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body;
    }

    describe('JSON nesting depth (RFC 8259 §9)', () => {
      it('answers 5,000 levels of arrays or objects with 400 json_too_deep on the public validate route, not a 500', async () => {
        for (const value of [nestedArrays(5000), nestedObjects(5000)]) {
          expectNosniffProblem(await send('POST', VALIDATE('note'), `{"value":${value}}`), 400, 'json_too_deep');
          // The whole body nested, not only a member.
          expectNosniffProblem(await send('POST', VALIDATE('note'), value), 400, 'json_too_deep');
        }
        // A route whose schema has no room for nesting is refused the same way, before validation.
        expectNosniffProblem(await send('POST', CHECK, `{"username":${nestedArrays(5000)}}`), 400, 'json_too_deep');
        // The service still answers afterwards.
        assert.equal((await send('GET', '/api/v1/field-types/note', undefined)).status, 200);
      });

      it('refuses deep bodies on POST and PATCH /me/fields with json_too_deep and writes nothing', async () => {
        const owner = await t.client.signUp(uniqueName('deep'));
        const field = await createNote(owner, 'kept as it is');
        const before = await stored(owner);
        for (const value of [nestedArrays(5000), nestedObjects(5000)]) {
          const created = await send('POST', FIELDS, `{"type":"note","value":${value}}`, { as: owner, headers: { 'idempotency-key': randomUUID() } });
          expectNosniffProblem(created, 400, 'json_too_deep');
          const patched = await send('PATCH', `${FIELDS}/${field.id}`, `{"value":${value}}`, { as: owner, headers: { 'if-match': '"1"' } });
          expectNosniffProblem(patched, 400, 'json_too_deep');
        }
        assert.deepEqual(await stored(owner), before);
        const read = await t.client.as(owner, 'GET', `${FIELDS}/${field.id}`);
        assert.equal(read.body.value, 'kept as it is');
        assert.equal(read.body.version, 1);
      });

      it('lets 32 levels through to the route and refuses 33', async () => {
        // {"value": [ … ]}: the object is one level, the arrays the rest.
        const atCap = await send('POST', VALIDATE('note'), `{"value":${nestedArrays(31)}}`);
        assert.equal(atCap.status, 200, atCap.text);
        assert.equal(atCap.body.valid, false, 'the note type judges the value (it is no string)');
        expectNosniffProblem(await send('POST', VALIDATE('note'), `{"value":${nestedArrays(32)}}`), 400, 'json_too_deep');
        // The deepest body a real client sends (a WebAuthn credential) is four levels.
        const objects = await send('POST', VALIDATE('note'), `{"value":${nestedObjects(31)}}`);
        assert.equal(objects.status, 200, objects.text);
      });

      it('does not count brackets inside strings, escaped quotes included', async () => {
        const text = `\\"${'['.repeat(300)}{{{\\\\\\"${'{'.repeat(300)}`;
        const res = await send('POST', VALIDATE('note'), `{"value":"${text}"}`);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.valid, true);
        assert.equal(res.body.normalized, `"${'['.repeat(300)}{{{\\"${'{'.repeat(300)}`);
      });
    });

    describe('UTF-8 only (RFC 8259 §8.1)', () => {
      const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));
      const malformed: Record<string, number[]> = {
        'bytes that never start a character (FF FE)': [0xff, 0xfe],
        'a CESU-8 surrogate (ED A0 80)': [0xed, 0xa0, 0x80],
        'a surrogate pair in CESU-8 (ED A0 BD ED B8 80)': [0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80],
        'an overlong encoding of "/" (C0 AF)': [0xc0, 0xaf],
        'a lone continuation byte (80)': [0x80],
        'a sequence cut short (E2 82)': [0xe2, 0x82],
        'a code point past U+10FFFF (F4 90 80 80)': [0xf4, 0x90, 0x80, 0x80],
      };

      it('answers every malformed UTF-8 sequence in a string with 400 invalid_json', async () => {
        for (const [what, seq] of Object.entries(malformed)) {
          const res = await send('POST', VALIDATE('note'), bytes('{"value":"ab', seq, 'cd"}'));
          expectNosniffProblem(res, 400, 'invalid_json');
          assert.match(res.body.detail, /UTF-8/, what);
        }
        // Outside a string too, and at the very end of the body.
        expectNosniffProblem(await send('POST', VALIDATE('note'), bytes('{"value":"x"}', [0xff])), 400, 'invalid_json');
        expectNosniffProblem(await send('POST', CHECK, bytes('{"username":"ab', [0xff, 0xfe], 'cd"}')), 400, 'invalid_json');
      });

      it('stores nothing from a body that is not UTF-8 (no U+FFFD in its place)', async () => {
        const owner = await t.client.signUp(uniqueName('utf'));
        const field = await createNote(owner, 'before');
        const before = await stored(owner);
        const created = await send('POST', FIELDS, bytes('{"type":"note","value":"ab', [0xff, 0xfe], 'cd"}'), { as: owner, headers: { 'idempotency-key': randomUUID() } });
        expectNosniffProblem(created, 400, 'invalid_json');
        const patched = await send('PATCH', `${FIELDS}/${field.id}`, bytes('{"value":"ab', [0xed, 0xa0, 0x80], 'cd"}'), { as: owner, headers: { 'if-match': '"1"' } });
        expectNosniffProblem(patched, 400, 'invalid_json');
        assert.deepEqual(await stored(owner), before);
      });

      it('keeps well-formed UTF-8 exactly, two-, three- and four-byte characters alike, and ignores a leading BOM', async () => {
        const owner = await t.client.signUp(uniqueName('utfok'));
        const text = 'Grüße, 東京 😀';
        const created = await send('POST', FIELDS, bytes(`{"type":"note","value":"${text}"}`), { as: owner, headers: { 'idempotency-key': randomUUID() } });
        assert.equal(created.status, 201, created.text);
        assert.equal(created.body.value, text);
        // RFC 8259 §8.1: a parser MAY ignore a byte order mark; we always have.
        const bom = await send('POST', VALIDATE('note'), bytes([0xef, 0xbb, 0xbf], `{"value":"${text}"}`));
        assert.equal(bom.status, 200, bom.text);
        assert.equal(bom.body.normalized, text);
      });
    });

    describe('well-formed strings (RFC 8259 §8.2)', () => {
      it('answers a lone surrogate written as an escape with 400 invalid_json, in a value or a member name', async () => {
        for (const escaped of ['\\ud800', '\\uDBFF', '\\udc00', 'a\\ud800b', '\\ude00\\ud83d', '\\ud83d\\ud83d']) {
          const res = await send('POST', VALIDATE('note'), `{"value":"${escaped}"}`);
          expectNosniffProblem(res, 400, 'invalid_json');
          assert.match(res.body.detail, /surrogate/, escaped);
        }
        expectNosniffProblem(await send('POST', VALIDATE('social'), '{"value":{"\\ud800":"x"}}'), 400, 'invalid_json');
        expectNosniffProblem(await send('POST', VALIDATE('note'), '{"value":"x","\\udfff":1}'), 400, 'invalid_json');
        expectNosniffProblem(await send('POST', VALIDATE('note'), '{"value":["ok",{"deep":["\\ud800"]}]}'), 400, 'invalid_json');
      });

      it('refuses the same on /me/fields and writes nothing', async () => {
        const owner = await t.client.signUp(uniqueName('lone'));
        const field = await createNote(owner, 'before');
        const before = await stored(owner);
        expectNosniffProblem(await send('POST', FIELDS, '{"type":"note","value":"a\\ud800"}', { as: owner, headers: { 'idempotency-key': randomUUID() } }), 400, 'invalid_json');
        expectNosniffProblem(await send('PATCH', `${FIELDS}/${field.id}`, '{"label":"\\udc00"}', { as: owner, headers: { 'if-match': '"1"' } }), 400, 'invalid_json');
        assert.deepEqual(await stored(owner), before);
      });

      it('accepts a surrogate pair written as escapes, and a backslash followed by the letters u d 8 0 0', async () => {
        const pair = await send('POST', VALIDATE('note'), '{"value":"smile \\ud83d\\ude00"}');
        assert.equal(pair.status, 200, pair.text);
        assert.equal(pair.body.normalized, 'smile 😀');
        const literal = await send('POST', VALIDATE('note'), '{"value":"C:\\\\ud800"}');
        assert.equal(literal.status, 200, literal.text);
        assert.equal(literal.body.normalized, 'C:\\ud800');
      });
    });

    describe('X-Content-Type-Options: nosniff on every answer', () => {
      it('on successes, refusals from routes and hooks, and the contract', async () => {
        assertNosniff(await send('GET', '/api/v1/field-types', undefined), 'a public GET');
        assertNosniff(await send('GET', '/api/v1/me', undefined, { as: device }), 'an authenticated GET');
        const etag = (await send('GET', '/api/v1/field-types/note', undefined)).header('etag')!;
        const notModified = await send('GET', '/api/v1/field-types/note', undefined, { headers: { 'if-none-match': etag } });
        assert.equal(notModified.status, 304);
        assertNosniff(notModified, 'a 304');
        assertNosniff(await send('GET', '/api/v1/openapi.json', undefined), 'the OpenAPI document');
        expectNosniffProblem(await send('GET', '/api/v1/me', undefined), 401, 'unauthenticated');
        expectNosniffProblem(await send('POST', VALIDATE('note'), '{"value":'), 400, 'invalid_json');
        expectNosniffProblem(await send('POST', VALIDATE('note'), '{}'), 400, 'validation_failed');
        expectNosniffProblem(await send('POST', VALIDATE('note'), '<x/>', { headers: { 'content-type': 'application/xml' } }), 415, 'unsupported_media_type');
        expectNosniffProblem(await send('POST', VALIDATE('no_such_type'), '{"value":"x"}'), 404, 'field_type_not_found');
        expectNosniffProblem(await send('POST', FIELDS, '{"type":"note","value":"x"}', { as: device }), 400, 'idempotency_key_required');
      });

      it('on what the edge answers: 404, 405, 414, invalid_url, host_required, 417 and parser errors on the raw socket', async () => {
        expectNosniffProblem(await send('GET', '/api/v1/no-such-thing', undefined), 404, 'not_found');
        expectNosniffProblem(await send('POST', '/nowhere', undefined), 404, 'not_found');
        expectNosniffProblem(await send('PUT', '/api/v1/field-types', undefined), 405, 'method_not_allowed');
        assertNosniff(await send('OPTIONS', '/api/v1/field-types', undefined), 'OPTIONS with Allow');
        expectNosniffProblem(await send('DELETE', `/api/v1/contacts/${'c'.repeat(101)}`, undefined), 414, 'uri_too_long');
        expectNosniffProblem(await send('GET', '/api/v1/%zz', undefined), 400, 'invalid_url');
        const port = Number(new URL(t.baseUrl).port);
        assertNosniff(head(await exchange(port, 'GET /api/v1/field-types HTTP/1.1\r\nConnection: close\r\n\r\n')), 'host_required');
        assertNosniff(head(await exchange(port, 'GET /api/v1/field-types HTTP/1.1\r\nHost: localhost\r\nExpect: something-else\r\n\r\n')), 'expectation_failed');
        const malformed = head(await exchange(port, 'GET / HTTP/1.1\r\nHost: localhost\r\nBad Header Line\r\n\r\n'));
        assert.equal(malformed.status, 400);
        assertNosniff(malformed, 'malformed_request on the raw socket');
        const upgrade = head(await exchange(port, 'GET /api/v1/nowhere HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n'));
        assert.equal(upgrade.status, 404);
        assertNosniff(upgrade, 'an upgrade to no WebSocket route');
      });

      it('on the health probes, the event stream and the web app', async () => {
        assertNosniff(await send('GET', '/health/live', undefined), '/health/live');
        assertNosniff(await send('GET', '/health/ready', undefined), '/health/ready');
        // The page answers 200 when web/dist is built and 503 with a hint when not; both carry it.
        assertNosniff(await send('GET', '/', undefined), 'the web app page');
        assertNosniff(await send('GET', '/security', undefined), 'a deep link of the web app');
        expectNosniffProblem(await send('GET', '/assets/missing.js', undefined), 404, 'not_found');
        const stream = await openSse(t.client, device);
        try {
          assert.equal(stream.status, 200);
          assert.equal(stream.headers['x-content-type-options'], 'nosniff', 'the event stream');
        } finally {
          stream.close();
        }
      });
    });
  });
}
