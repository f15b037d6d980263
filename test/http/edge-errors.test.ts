// PRODUCT §0 "every error is application/problem+json", at the edge too: whatever Node's HTTP
// parser, the router, the server or the upgrade path answers before a route runs is a problem
// document with our members and a stable code (docs/operations.md "Errors at the edge").
// Nothing here touches the store, so it runs once, on the first backend this run has.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createEdge } from '../../src/platform/http/edge.js';
import { startTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/backends.js';
import { expectProblem } from '../helpers/problem.js';

const backend = backends.find((b) => !b.skip) ?? backends[0]!;
const CHECK = '/api/v1/auth/username/check';
const ORIGIN = 'https://app.example.com';
const SEMVER = /^\d+\.\d+\.\d+$/;
// Stack frames, file positions and library names have no place in a response body.
const LEAK = /(\n\s+at\s|node_modules|\.[cm]?[jt]s:\d+|fastify|FST_|HPE_|llhttp|\bstack\b)/i;

interface Answer {
  status: number;
  header(name: string): string | null;
  text: string;
  /** Raw exchanges only: the server closed the connection after answering. */
  closed?: boolean;
}

/** The shared refusal checks, and the edge's: the whole document (written outside the routes), its request id's form, the API version, no leak. */
function expectEdgeProblem(res: Answer, status: number, code: string): Record<string, unknown> {
  const body = expectProblem(res, status, code);
  assert.equal(body.type, `urn:vid:problem:${code}`);
  assert.doesNotThrow(() => new URL(body.type as string), 'type is a URI');
  assert.equal(typeof body.title, 'string');
  assert.ok((body.title as string).length > 0);
  assert.equal(typeof body.detail, 'string');
  assert.ok((body.detail as string).length > 0);
  assert.match(String(body.request_id), /^[A-Za-z0-9._-]{8,64}$/);
  assert.match(res.header('vid-api-version') ?? '', SEMVER);
  assert.doesNotMatch(res.text, LEAK);
  return body;
}

async function send(url: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, header: (name) => response.headers.get(name), text };
}

/** Bytes on a fresh connection, read until the server closes it (or `waitMs` passes). */
function exchange(port: number, bytes: string | Buffer, waitMs = 3000): Promise<{ raw: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    let raw = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ raw, closed: false });
    }, waitMs);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (raw += chunk));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ raw, closed: true });
    });
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? undefined : reject(error)));
  });
}

/** The first response in `raw` (HTTP/1.1, Content-Length framed). */
function parse(raw: string, closed = false): Answer & { rest: string } {
  const end = raw.indexOf('\r\n\r\n');
  assert.ok(end > 0, `a response head: ${JSON.stringify(raw.slice(0, 300))}`);
  const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const length = Number(headers.get('content-length') ?? 0);
  const bodyStart = end + 4;
  return {
    status: Number(statusLine!.split(' ')[1]),
    header: (name) => headers.get(name.toLowerCase()) ?? null,
    text: Buffer.from(raw.slice(bodyStart), 'latin1').subarray(0, length).toString('utf8'),
    rest: raw.slice(bodyStart + length),
    closed,
  };
}

async function rawAnswer(port: number, bytes: string | Buffer): Promise<Answer> {
  const { raw, closed } = await exchange(port, bytes);
  return parse(raw, closed);
}

function assertClosesConnection(res: Answer): void {
  assert.equal(res.header('connection')?.toLowerCase(), 'close');
  assert.equal(res.closed, true, 'the server closed the connection');
}

const upgrade = (path: string, extra = '') =>
  `GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n${extra}\r\n`;

describe(`errors at the edge are problem+json [${backend.name}]`, () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await startTestApp(backend, { BODY_LIMIT_BYTES: '1024' });
    port = Number(new URL(t.baseUrl).port);
  });
  after(() => t.close());

  it("answers a path parameter past the router's limit with 414 uri_too_long, whichever method", async () => {
    const long = `/api/v1/contacts/${'c'.repeat(101)}`;
    // DELETE is refused by the router itself; GET first reaches the web app's catch-all.
    for (const method of ['DELETE', 'GET', 'HEAD']) {
      const res = await send(t.baseUrl + long, { method });
      if (method === 'HEAD') {
        assert.equal(res.status, 414);
        assert.equal(res.header('content-type')?.split(';')[0], 'application/problem+json');
      } else expectEdgeProblem(res, 414, 'uri_too_long');
    }
    // At the limit the route is found, and its own schema judges the id.
    expectEdgeProblem(await send(`${t.baseUrl}/api/v1/contacts/${'c'.repeat(100)}`, { method: 'DELETE' }), 400, 'validation_failed');
  });

  it('answers unknown routes with 404 not_found', async () => {
    expectEdgeProblem(await send(`${t.baseUrl}/api/v1/no-such-thing`), 404, 'not_found');
    expectEdgeProblem(await send(`${t.baseUrl}/api/v1/no-such-thing`, { method: 'PATCH' }), 404, 'not_found');
    expectEdgeProblem(await send(`${t.baseUrl}/nowhere`, { method: 'POST' }), 404, 'not_found');
    expectEdgeProblem(await send(`${t.baseUrl}/assets/missing.js`), 404, 'not_found');
    // Trailing slashes are strict, as the router is.
    expectEdgeProblem(await send(`${t.baseUrl}/api/v1/me/`), 404, 'not_found');
  });

  it('answers a known path with a method it lacks with 405 method_not_allowed and Allow (RFC 9110 §15.5.6)', async () => {
    const cases: Array<[string, string, string]> = [
      ['DELETE', CHECK, 'POST, OPTIONS'],
      ['GET', CHECK, 'POST, OPTIONS'], // past the web app's GET catch-all
      ['PUT', '/api/v1/me', 'GET, HEAD, PATCH, OPTIONS'],
      ['POST', '/api/v1/contacts/ct_anything', 'GET, HEAD, DELETE, OPTIONS'],
      ['POST', '/api/v1/profiles/prf_x/exposures/fld_y', 'PUT, DELETE, OPTIONS'],
      ['POST', '/api/v1/events/stream', 'GET, OPTIONS'], // no HEAD: the stream route declares none
      ['DELETE', '/', 'GET, HEAD, OPTIONS, PROPFIND'], // PROPFIND: a bare host name finds the address book
      ['POST', '/health/live', 'GET, HEAD, OPTIONS'],
    ];
    for (const [method, path, allow] of cases) {
      const res = await send(t.baseUrl + path, { method, headers: { 'content-type': 'application/json' }, body: method === 'GET' ? undefined : '{}' });
      const body = expectEdgeProblem(res, 405, 'method_not_allowed');
      assert.equal(res.header('allow'), allow, `${method} ${path}`);
      assert.match(String(body.detail), new RegExp(`^${method} `));
    }
    // HEAD gets the status and Allow without a body.
    const head = await send(t.baseUrl + CHECK, { method: 'HEAD' });
    assert.equal(head.status, 405);
    assert.equal(head.header('allow'), 'POST, OPTIONS');
    assert.equal(head.text, '');
    // A method the path has is not touched: GET /me still asks for a session.
    expectEdgeProblem(await send(`${t.baseUrl}/api/v1/me`), 401, 'unauthenticated');
  });

  it('answers OPTIONS on a known path with 204 and Allow (RFC 9110 §9.3.7), on an unknown one with 404', async () => {
    const known = await send(`${t.baseUrl}/api/v1/me`, { method: 'OPTIONS' });
    assert.equal(known.status, 204);
    assert.equal(known.header('allow'), 'GET, HEAD, PATCH, OPTIONS');
    assert.equal(known.text, '');
    expectEdgeProblem(await send(`${t.baseUrl}/api/v1/no-such-thing`, { method: 'OPTIONS' }), 404, 'not_found');
  });

  it('answers bodies it cannot take: 415, 413 (Content-Length or chunked), 400 invalid_json', async () => {
    const post = (body: BodyInit, headers: Record<string, string>) => send(t.baseUrl + CHECK, { method: 'POST', body, headers, duplex: 'half' } as RequestInit);
    expectEdgeProblem(await post('<username>abc</username>', { 'content-type': 'application/xml' }), 415, 'unsupported_media_type');
    expectEdgeProblem(await post('{"username":"abcdef"}', { 'content-type': 'text/plain' }), 415, 'unsupported_media_type');
    expectEdgeProblem(await post(JSON.stringify({ username: 'a'.repeat(2000) }), { 'content-type': 'application/json' }), 413, 'payload_too_large');
    const chunked = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 4; i++) controller.enqueue(new TextEncoder().encode(`"${'x'.repeat(400)}",`));
        controller.close();
      },
    });
    expectEdgeProblem(await post(chunked, { 'content-type': 'application/json' }), 413, 'payload_too_large');
    expectEdgeProblem(await post('{"username": ', { 'content-type': 'application/json' }), 400, 'invalid_json');
    // Declared over the limit: refused before a byte of the body is read.
    const declared = await rawAnswer(port, `POST ${CHECK} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 5000000\r\nConnection: close\r\n\r\n{`);
    expectEdgeProblem(declared, 413, 'payload_too_large');
  });

  it('answers malformed percent-encoding in the path with 400 invalid_url, keeping a client request id', async () => {
    for (const [method, path] of [['GET', '/api/v1/%zz'], ['DELETE', '/api/v1/contacts/%zz'], ['GET', '/%E0%A4%A'], ['POST', '/api/v1/%']]) {
      expectEdgeProblem(await send(t.baseUrl + path!, { method }), 400, 'invalid_url');
    }
    const id = 'edge.client-0001';
    const res = await send(`${t.baseUrl}/api/v1/%zz`, { headers: { 'vid-request-id': id } });
    expectEdgeProblem(res, 400, 'invalid_url');
    assert.equal(res.header('vid-request-id'), id);
  });

  it("answers what Node's HTTP parser refuses on the raw socket, and closes the connection", async () => {
    const cases: Array<[string, string | Buffer, number, string]> = [
      ['a header line without a colon', 'GET /api/v1/me HTTP/1.1\r\nHost: localhost\r\nBad Header\r\n\r\n', 400, 'malformed_request'],
      ['a request line that is no HTTP', 'HELLO THERE\r\n\r\n', 400, 'malformed_request'],
      ['a space in the header name', 'GET / HTTP/1.1\r\nHost: localhost\r\nX Bad: 1\r\n\r\n', 400, 'malformed_request'],
      ['Content-Length with Transfer-Encoding (RFC 9112 §6.3)', `POST ${CHECK} HTTP/1.1\r\nHost: localhost\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`, 400, 'malformed_request'],
      ['two Content-Length values', `POST ${CHECK} HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}`, 400, 'malformed_request'],
      ['a chunk size that is no number', `POST ${CHECK} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`, 400, 'malformed_request'],
      ['one header over the size limit (RFC 6585 §5)', `GET /api/v1/me HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'header_fields_too_large'],
      ['a flood of headers', `GET /api/v1/me HTTP/1.1\r\nHost: localhost\r\n${Array.from({ length: 3000 }, (_, i) => `X-H${i}: v`).join('\r\n')}\r\n\r\n`, 431, 'header_fields_too_large'],
      ['a URI past the header size limit', `GET /api/v1/${'u'.repeat(20_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`, 431, 'header_fields_too_large'],
    ];
    for (const [what, bytes, status, code] of cases) {
      const res = await rawAnswer(port, bytes);
      assert.equal(res.status, status, what);
      expectEdgeProblem(res, status, code);
      assertClosesConnection(res);
    }
  });

  it('refuses an HTTP/1.1 request without Host with 400 host_required (RFC 9112 §3.2); HTTP/1.0 needs none', async () => {
    const res = await rawAnswer(port, 'GET /health/live HTTP/1.1\r\nConnection: close\r\n\r\n');
    expectEdgeProblem(res, 400, 'host_required');
    const old = await rawAnswer(port, 'GET /health/live HTTP/1.0\r\n\r\n');
    assert.equal(old.status, 200);
  });

  it('answers an expectation other than 100-continue with 417 expectation_failed (RFC 9110 §10.1.1)', async () => {
    const res = await rawAnswer(port, 'GET /health/live HTTP/1.1\r\nHost: localhost\r\nExpect: tea\r\nVID-Request-Id: edge.expect-0001\r\n\r\n');
    expectEdgeProblem(res, 417, 'expectation_failed');
    assert.equal(res.header('vid-request-id'), 'edge.expect-0001');
    assertClosesConnection(res);
    // 100-continue still works: the interim 100, then the answer.
    const body = '{"username":"edgecase"}';
    const { raw } = await exchange(port, `POST ${CHECK} HTTP/1.1\r\nHost: localhost\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
    const interim = parse(raw);
    assert.equal(interim.status, 100);
    assert.equal(parse(interim.rest).status, 200);
  });

  it('answers an Upgrade to anything but a WebSocket route as plain HTTP (RFC 9110 §7.8): problems, never 101', async () => {
    const unknown = await rawAnswer(port, upgrade('/api/v1/no-such-thing'));
    expectEdgeProblem(unknown, 404, 'not_found');
    assertClosesConnection(unknown);
    const badUrl = await rawAnswer(port, upgrade('/api/v1/%zz'));
    expectEdgeProblem(badUrl, 400, 'invalid_url');
    assertClosesConnection(badUrl);
    const tooLong = await rawAnswer(port, upgrade(`/api/v1/contacts/${'c'.repeat(101)}`));
    expectEdgeProblem(tooLong, 414, 'uri_too_long');
    const wrongMethod = await rawAnswer(port, upgrade(CHECK).replace(/^GET/, 'PUT'));
    expectEdgeProblem(wrongMethod, 405, 'method_not_allowed');
    assert.equal(wrongMethod.header('allow'), 'POST, OPTIONS');
    // A known resource that is no WebSocket answers as itself.
    const live = await rawAnswer(port, upgrade('/health/live'));
    assert.equal(live.status, 200);
    assertClosesConnection(live);
    // The WebSocket route refuses a client without credentials before upgrading.
    const stream = await rawAnswer(port, upgrade('/api/v1/events/stream'));
    expectEdgeProblem(stream, 401, 'unauthenticated');
    assert.equal(stream.closed, true);
  });
});

describe(`an error in a hook before the route is a problem too [${backend.name}]`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp(backend, { RATE_LIMIT_PUBLIC_PER_MIN: '1' });
  });
  after(() => t.close());

  it('answers the rate limit (an onRequest hook) on an unrouted path with 429 rate_limited and Retry-After', async () => {
    expectEdgeProblem(await send(`${t.baseUrl}/api/v1/no-such-thing`, { method: 'DELETE' }), 404, 'not_found');
    const limited = await send(`${t.baseUrl}/api/v1/no-such-thing`, { method: 'DELETE' });
    expectEdgeProblem(limited, 429, 'rate_limited');
    assert.match(limited.header('retry-after') ?? '', /^\d+$/);
  });
});

describe(`edge errors with CORS on [${backend.name}]`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp(backend, { CORS_ORIGINS: ORIGIN });
  });
  after(() => t.close());

  it('keeps preflights working, answers a bare OPTIONS with 204 (not text/plain 400), and 405 carries CORS headers', async () => {
    const preflight = await send(`${t.baseUrl}/api/v1/me`, { method: 'OPTIONS', headers: { origin: ORIGIN, 'access-control-request-method': 'PATCH' } });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.header('access-control-allow-origin'), ORIGIN);
    const bare = await send(`${t.baseUrl}/api/v1/me`, { method: 'OPTIONS' });
    assert.equal(bare.status, 204);
    assert.equal(bare.text, '');
    const wrong = await send(t.baseUrl + CHECK, { method: 'DELETE', headers: { origin: ORIGIN } });
    expectEdgeProblem(wrong, 405, 'method_not_allowed');
    assert.equal(wrong.header('allow'), 'POST, OPTIONS');
    assert.equal(wrong.header('access-control-allow-origin'), ORIGIN);
  });
});

describe(`requests on open connections while the node drains [${backend.name}]`, () => {
  it('answers them with 503 shutting_down, Retry-After and Connection: close, not the framework 503', async () => {
    const t = await startTestApp(backend);
    const port = Number(new URL(t.baseUrl).port);
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let raw = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (raw += chunk));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    // A request in flight keeps the connection busy, so closing the server does not drop it.
    const body = '{"username":"drainer"}';
    socket.write(`POST ${CHECK} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closing = t.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.write(`${body}GET /health/live HTTP/1.1\r\nHost: localhost\r\nVID-Request-Id: edge.drain-0001\r\n\r\n`);
    await closed;
    await closing;
    const first = parse(raw);
    assert.equal(first.status, 200, first.text);
    const second = parse(first.rest, true);
    const problem = expectEdgeProblem(second, 503, 'shutting_down');
    assert.equal(problem.request_id, 'edge.drain-0001');
    assert.equal(second.header('retry-after'), '1');
    assert.equal(second.header('connection')?.toLowerCase(), 'close');
    assert.equal(second.header('x-content-type-options'), 'nosniff');
  });
});

describe('a request that does not arrive in time', () => {
  it('is answered 408 request_timeout on the raw socket (the same handler the app installs)', async () => {
    const edge = createEdge({ apiVersion: '1.0.0' });
    // Node checks its timers every connectionsCheckingInterval; the app's are the defaults (30 s).
    const server = createServer({ headersTimeout: 150, requestTimeout: 300, connectionsCheckingInterval: 25 }, (_req, res) => res.end('never'));
    server.on('clientError', edge.serverOptions.clientErrorHandler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const res = await rawAnswer(port, 'GET /health/live HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
      expectEdgeProblem(res, 408, 'request_timeout');
      assertClosesConnection(res);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
