import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { refuse } from '../../errors.js';

const CLIENT_ID = /^[A-Za-z0-9._-]{8,64}$/;

/** A caller's own VID-Request-Id is kept when it is safe to log; otherwise we make one. */
export function requestIdFor(header: string | string[] | undefined): string {
  return typeof header === 'string' && CLIENT_ID.test(header) ? header : randomUUID();
}

/**
 * Every response carries VID-Request-Id (spec: Common request rules 4), VID-API-Version and
 * X-Content-Type-Options: nosniff (WHATWG Fetch, "X-Content-Type-Options" header: a browser never
 * runs a JSON or problem body as a script or style sheet, whatever a page that links it claims).
 */
export const requestIdPlugin = fp(async (app: FastifyInstance, opts: { apiVersion: string }) => {
  // A callback hook: nothing here waits, so no promise is made per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('VID-Request-Id', request.id);
    reply.header('VID-API-Version', opts.apiVersion);
    reply.header('X-Content-Type-Options', 'nosniff');
    // RFC 9112 §3.2: an HTTP/1.1 request without Host is a 400. Node's own check answers it with
    // no body, so app.ts turns that off (edge.ts) and the refusal is made here, in a hook every
    // request runs anyway: one property read.
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      return done(refuse('host_required', 'an HTTP/1.1 request carries a Host header'));
    }
    done();
  });
}, { name: 'request-id' });
