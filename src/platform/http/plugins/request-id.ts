import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

const CLIENT_ID = /^[A-Za-z0-9._-]{8,64}$/;

/** A caller's own VID-Request-Id is kept when it is safe to log; otherwise we make one. */
export function requestIdFor(header: string | string[] | undefined): string {
  return typeof header === 'string' && CLIENT_ID.test(header) ? header : randomUUID();
}

/** Every response carries VID-Request-Id (spec: Common request rules 4) and VID-API-Version. */
export const requestIdPlugin = fp(async (app: FastifyInstance, opts: { apiVersion: string }) => {
  // A callback hook: nothing here waits, so no promise is made per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('VID-Request-Id', request.id);
    reply.header('VID-API-Version', opts.apiVersion);
    done();
  });
}, { name: 'request-id' });
