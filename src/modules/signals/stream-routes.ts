import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { WebSocket } from 'ws';
import { refuse } from '../../platform/errors.js';
import type { FeedPosition } from '../../platform/signals/feed.js';
import type { StreamHub } from '../../platform/signals/hub.js';
import { sseHeaders, sseOpening, sseSink, SSE_RETRY_MS } from '../../platform/signals/sse.js';
import { credentialsFromProtocols, webSocketSink, WS_PROTOCOL } from '../../platform/signals/websocket.js';
import { callerOf } from '../../platform/http/caller.js';
import { StreamHeaders, StreamQuery } from './schemas.js';
import type { SignalService } from './service.js';

export interface StreamOptions {
  signals: SignalService;
  /** When the session's access token (or the session) ends: the stream ends with it. */
  streamExpiry(sessionId: string): Promise<number>;
  hub: StreamHub;
  maxStreamsPerAccount: number;
  heartbeatMs: number;
}

interface StreamStart {
  after: FeedPosition;
  expiresAt: number;
}

const DESCRIPTION = `Signals as they happen, over Server-Sent Events or, with \`Upgrade: websocket\` on the same path, a WebSocket.

**Authentication** as on every route: \`Authorization: DPoP <access token>\` and a \`DPoP\` proof (htm GET, htu this URL
with the https/http scheme even for wss/ws, ath). Browsers cannot set headers: for SSE read the stream with fetch()
(EventSource cannot send them); for a WebSocket offer three subprotocols, \`${WS_PROTOCOL}\`, \`vid.auth.<access token>\` and
\`vid.dpop.<proof>\`; the server selects \`${WS_PROTOCOL}\`.

**SSE**: each signal is \`id: <cursor>\`, \`event: <kind>\`, \`data: <Signal JSON>\`. The first block holds \`retry: ${SSE_RETRY_MS}\` and the
starting \`id\`; a \`: heartbeat\` comment comes every 15 s. Reconnect with Last-Event-ID (or \`since\`): delivery resumes after it, no
gap, no repeat.

**WebSocket** text frames: \`{"type":"ready","cursor":…}\` first, then \`{"type":"signal","signal":{…}}\`; pings every 15 s. Resume
with \`?since=<last signal id>\`. Close codes: 4401 access token expired (renew, reconnect), 4403 session revoked, 4409 replaced by a
newer stream of the same session, 1001 server going away (reconnect).

A stream ends when its access token expires or its session is revoked (at once). A client that does not read fast enough is
disconnected once its buffer has stayed full too long; it resumes from its last signal id. Each account may hold a limited
number of streams per server node (429 too_many_streams; a session at the limit replaces its own oldest stream).`;

/**
 * GET /events/stream: SSE and WebSocket on one path (PRODUCT §7). Everything that can refuse
 * the stream (token, proof, cursor, stream limit) runs before the response starts or the
 * socket is upgraded, so refusals are ordinary problem+json responses.
 */
export async function streamRoutes(app: FastifyInstance, opts: StreamOptions) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { signals, hub } = opts;
  const starts = new WeakMap<FastifyRequest, StreamStart>();

  function tooManyStreams() {
    return refuse('too_many_streams', {
      detail: `this account already holds ${opts.maxStreamsPerAccount} streams on this server; close one`,
      retryAfterSeconds: Math.ceil(opts.heartbeatMs / 1000),
    });
  }

  /** Browsers put the credentials in subprotocols; they become the headers dpop-auth reads. */
  async function credentialsFromSubprotocols(request: FastifyRequest): Promise<void> {
    if (!request.ws || request.headers.authorization !== undefined || request.headers.dpop !== undefined) return;
    const { token, proof } = credentialsFromProtocols(request.headers['sec-websocket-protocol']);
    if (token !== undefined) request.headers.authorization = `DPoP ${token}`;
    if (proof !== undefined) request.headers.dpop = proof;
  }

  /** Where the stream starts and until when it may run; refused here, before any upgrade. */
  async function prepareStream(request: FastifyRequest): Promise<void> {
    const auth = callerOf(request);
    const lastEventId = request.headers['last-event-id'];
    // EventSource resends its original URL with Last-Event-ID: the header is the newer position.
    const cursor = typeof lastEventId === 'string' && lastEventId !== '' ? lastEventId : (request.query as { since?: string }).since;
    const after = await signals.streamStart(auth.account.id, cursor);
    const expiresAt = await opts.streamExpiry(auth.sessionId);
    if (hub.admission(auth.account.id, auth.sessionId) === 'full') throw tooManyStreams();
    starts.set(request, { after, expiresAt });
  }

  r.route({
    method: 'GET',
    url: '/events/stream',
    exposeHeadRoute: false,
    config: { auth: 'session', stream: true, refusals: [['invalid_cursor', 'malformed, or issued to another account'], ['cursor_expired', 'the signals after this cursor are past the retention: resync, then open without a cursor'], ['too_many_streams', 'too many streams for this account on this node']] },
    schema: {
      tags: ['events'],
      summary: 'Live signals: Server-Sent Events, or a WebSocket (Upgrade) on the same path',
      description: DESCRIPTION,
      querystring: StreamQuery,
      headers: StreamHeaders,
      response: {
        101: { type: 'null', description: `Switching Protocols: the WebSocket (subprotocol ${WS_PROTOCOL}) is open` },
        200: {
          description: 'text/event-stream that stays open: one block per signal, heartbeat comments in between',
          content: { 'text/event-stream': { schema: { type: 'string', description: 'Server-Sent Events (WHATWG HTML §9.2)' } } },
        },
      },
    },
    onRequest: credentialsFromSubprotocols,
    preHandler: prepareStream,
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const start = starts.get(request)!;
      starts.delete(request);
      const auth = callerOf(request);
      // Re-checked synchronously with open(): another stream may have been opened meanwhile.
      if (hub.admission(auth.account.id, auth.sessionId) === 'full') throw tooManyStreams();
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, sseHeaders(reply.getHeaders()));
      res.write(sseOpening(signals.cursorAt(auth.account.id, start.after)));
      const stream = hub.open({ accountId: auth.account.id, sessionId: auth.sessionId, after: start.after, expiresAt: start.expiresAt, sink: sseSink(res) })!;
      res.on('close', () => hub.remove(stream));
      res.on('error', () => hub.remove(stream));
      // The client may have gone while the stream was being prepared.
      if (!res.socket || res.socket.destroyed) hub.remove(stream);
    },
    wsHandler: (socket: WebSocket, request: FastifyRequest) => {
      const start = starts.get(request)!;
      starts.delete(request);
      const auth = callerOf(request);
      // Nothing is expected from the client; its frames are read (so pongs arrive) and ignored.
      socket.send(JSON.stringify({ type: 'ready', cursor: signals.cursorAt(auth.account.id, start.after) }));
      const stream = hub.open({
        accountId: auth.account.id,
        sessionId: auth.sessionId,
        after: start.after,
        expiresAt: start.expiresAt,
        sink: webSocketSink(socket, request.raw.socket),
      });
      if (!stream) {
        socket.close(4429, 'too_many_streams');
        return;
      }
      socket.on('close', () => hub.remove(stream));
    },
  });
}
