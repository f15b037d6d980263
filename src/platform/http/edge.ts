import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { maxHeaderSize, ServerResponse, STATUS_CODES } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { refuse } from '../errors.js';
import type { AppError } from '../errors.js';
import { problemDocument, sendProblem } from './plugins/problem.js';
import { requestIdFor } from './plugins/request-id.js';
import { createRouteTable } from './route-table.js';
import type { RouteTable } from './route-table.js';

/**
 * Errors at the edge (docs/operations.md): everything Node's HTTP parser, the router or the server
 * itself would answer before a route runs, answered as application/problem+json (RFC 9457) with
 * the refusal catalogue's codes, VID-Request-Id, VID-API-Version and X-Content-Type-Options. Each
 * piece sits where only the rare request reaches it (an event Node emits for a refused or unusual
 * request, a router callback, the not-found path): a request that routes normally pays for none
 * of it.
 */

/** find-my-way's default, set explicitly so the router and the route table agree. */
const MAX_PARAM_LENGTH = 100;
const PROBLEM_JSON = 'application/problem+json; charset=utf-8';

export interface Edge {
  /** Spread into Fastify's options: the router's limit and its errors, the parser's errors. */
  serverOptions: {
    routerOptions: { maxParamLength: number };
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void;
    clientErrorHandler: (error: Error & { code?: string }, socket: Duplex) => void;
    http: { requireHostHeader: boolean };
  };
  /** Every route's methods by path (405 and Allow), filled by the plugin's onRoute hook. */
  routes: RouteTable;
  /** What @fastify/websocket listens on instead of the server (ws `server` option): only upgrades to a WebSocket route. */
  webSocketUpgrades: Server;
  /** Register before any route: the route table, Expect, the upgrade gate and the drain. */
  plugin: (app: FastifyInstance) => Promise<void>;
}

function problemHeaders(error: AppError, requestId: string, body: string, apiVersion: string): Record<string, string> {
  return {
    'Content-Type': PROBLEM_JSON,
    'Content-Length': String(Buffer.byteLength(body)),
    'VID-Request-Id': requestId,
    'VID-API-Version': apiVersion,
    'X-Content-Type-Options': 'nosniff',
    // RFC 9110 §10.2.3, as the problem plugin does for a routed refusal.
    ...(error.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(error.retryAfterSeconds) }),
  };
}

/** Which refusal a parser error is (Node's own answer would be the status with a JSON or empty body). */
function parserRefusal(code: string | undefined): AppError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      // RFC 6585 §5. The request line counts too, so an over-long URI lands here as well.
      return refuse('header_fields_too_large', `the request line and headers are larger than ${maxHeaderSize} bytes`);
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      // RFC 9110 §15.5.9: headersTimeout/requestTimeout ran out before the request was complete.
      return refuse('request_timeout', 'the request did not arrive in time');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return refuse('payload_too_large', 'the chunk extensions are larger than the service accepts');
    default:
      // RFC 9112 §2.2/§6.3: a message that does not parse (bad header, Content-Length with
      // Transfer-Encoding, bad chunk) is refused, never guessed at.
      return refuse('malformed_request', 'the request is not valid HTTP/1.1');
  }
}

export function createEdge(opts: { apiVersion: string }): Edge {
  const routes = createRouteTable(MAX_PARAM_LENGTH);
  const webSocketUpgrades = new EventEmitter() as unknown as Server;
  let draining = false;
  // The parser reports the same error again if more bytes arrive: one answer per connection.
  const answered = new WeakSet<Duplex>();

  /** A problem on a response Fastify does not own (Expect, the drain); the connection closes after it. */
  function answer(res: ServerResponse, error: AppError, requestId: string): void {
    const body = JSON.stringify(problemDocument(error, requestId));
    res.shouldKeepAlive = false;
    res.writeHead(error.status, problemHeaders(error, requestId, body, opts.apiVersion));
    res.end(body);
  }

  const shuttingDown = () => refuse('shutting_down', { detail: 'this node is draining; retry (another node answers)', retryAfterSeconds: 1 });

  /**
   * Node's parser gave up on the bytes (malformed request, header flood, timeout): there is no
   * request, so the response is written on the raw socket, and the connection closed since the
   * stream cannot be trusted past this point.
   */
  function clientErrorHandler(this: { log?: FastifyBaseLogger } | undefined, error: Error & { code?: string }, socket: Duplex): void {
    if (error.code === 'ECONNRESET' || socket.destroyed || answered.has(socket)) return;
    this?.log?.debug({ code: error.code }, 'request refused by the HTTP parser');
    // As Node itself does: never write into a response that has started on this connection.
    const current = (socket as { _httpMessage?: ServerResponse })._httpMessage;
    if (!socket.writable || current?.headersSent) {
      socket.destroy();
      return;
    }
    answered.add(socket);
    const refusal = parserRefusal(error.code);
    const requestId = randomUUID();
    const body = JSON.stringify(problemDocument(refusal, requestId));
    const headers = { ...problemHeaders(refusal, requestId, body, opts.apiVersion), Date: new Date().toUTCString(), Connection: 'close' };
    const head = [`HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
  }

  /** The router's refusals: no hook has run, so the headers every response carries are set here. */
  function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
    reply.header('VID-Request-Id', request.id).header('VID-API-Version', opts.apiVersion).header('X-Content-Type-Options', 'nosniff');
    let refusal: AppError;
    if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
      // RFC 9110 §15.5.15
      refusal = refuse('uri_too_long', `a path segment is longer than ${MAX_PARAM_LENGTH} characters`);
    } else if (error.code === 'FST_ERR_BAD_URL') {
      // RFC 3986 §2.1: % is followed by two hex digits, and the bytes decode as UTF-8.
      refusal = refuse('invalid_url', 'the path is not valid percent-encoding');
    } else {
      refusal = refuse('internal_error', { cause: error });
    }
    if (refusal.status >= 500) request.log.error({ err: error }, 'request failed before routing');
    sendProblem(request, reply, refusal);
  }

  const plugin = fp(async (app: FastifyInstance) => {
    app.addHook('onRoute', (route) => routes.add(route));

    // RFC 9110 §10.1.1: an expectation the server cannot meet is 417 (Node sends it without a body).
    app.server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
      answer(res, refuse('expectation_failed', 'only Expect: 100-continue is supported'), requestIdFor(req.headers['vid-request-id']));
    });

    // Only an upgrade to a WebSocket route reaches @fastify/websocket. Any other is answered as
    // plain HTTP (RFC 9110 §7.8: a server may ignore Upgrade): 404, 405, 400 as problems, a known
    // resource as itself; Node no longer parses this socket, so the connection closes after it.
    app.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const forWebSocket = req.method === 'GET' && routes.isWebSocket(path) && webSocketUpgrades.listenerCount('upgrade') > 0;
      if (forWebSocket && !draining) {
        webSocketUpgrades.emit('upgrade', req, socket, head);
        return;
      }
      socket.on('error', () => socket.destroy());
      const res = new ServerResponse(req);
      res.shouldKeepAlive = false;
      res.assignSocket(socket as never);
      res.on('finish', () => {
        res.detachSocket(socket as never);
        socket.end(() => socket.destroy());
      });
      if (draining) answer(res, shuttingDown(), requestIdFor(req.headers['vid-request-id']));
      else app.routing(req, res);
    });

    // Fastify answers requests that arrive on open connections while it closes with a plain JSON
    // 503 of its own. From the first close hook on, this node answers them itself: 503
    // shutting_down with Retry-After (RFC 9110 §15.6.4) and Connection: close, so the client
    // retries elsewhere. In-flight requests finish as they were.
    app.addHook('preClose', (done) => {
      draining = true;
      app.server.removeAllListeners('request');
      app.server.on('request', (req: IncomingMessage, res: ServerResponse) => answer(res, shuttingDown(), requestIdFor(req.headers['vid-request-id'])));
      done();
    });
  }, { name: 'edge' });

  return {
    serverOptions: { routerOptions: { maxParamLength: MAX_PARAM_LENGTH }, frameworkErrors, clientErrorHandler, http: { requireHostHeader: false } },
    routes,
    webSocketUpgrades,
    plugin,
  };
}
