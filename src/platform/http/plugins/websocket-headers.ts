import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';

/** Headers the 101 itself defines, or that describe a body it does not have: never copied. */
const NOT_ON_A_101 = new Set(['connection', 'upgrade', 'content-type', 'content-length', 'transfer-encoding', 'keep-alive', 'sec-websocket-accept', 'sec-websocket-protocol', 'sec-websocket-extensions']);

/**
 * A WebSocket's 101 Switching Protocols is written by `ws` on the raw socket, not by Fastify, so
 * the headers the hooks put on the reply (VID-Request-Id, VID-API-Version, RateLimit-*, Quota-*,
 * Deprecation) would be lost. ws emits 'headers' with the 101's header lines just before writing
 * them (ws WebSocketServer#completeUpgrade): the reply's headers, as the hooks left them, are
 * added there. Register after @fastify/websocket and before the hooks that set headers.
 */
export const webSocketHeadersPlugin = fp(async (app: FastifyInstance) => {
  const replies = new WeakMap<IncomingMessage, FastifyReply>();
  // @fastify/websocket's own onRequest hook (registered before this one) tells upgrades apart.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.ws) replies.set(request.raw, reply);
    done();
  });
  app.websocketServer.on('headers', (lines: string[], request: IncomingMessage) => {
    const reply = replies.get(request);
    if (!reply) return;
    replies.delete(request);
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value === undefined || NOT_ON_A_101.has(name.toLowerCase())) continue;
      for (const one of Array.isArray(value) ? value : [value]) {
        // Values our hooks set never hold a line break; one that did must not split the head.
        if (!/[\r\n]/.test(String(one))) lines.push(`${name}: ${one}`);
      }
    }
  });
}, { name: 'websocket-headers', dependencies: ['@fastify/websocket'] });
