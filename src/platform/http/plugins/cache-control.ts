import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

/**
 * What every answer to an authenticated request may be cached as, unless its route says more
 * (PRODUCT §0): `no-store`. Without it a browser applies heuristic freshness (RFC 9111 §4.2.2)
 * to a 404 or 410 and keeps showing it after the state changed (a restored account's card).
 * Routes whose answers carry an ETag a client revalidates set `private, no-cache` themselves.
 */
export const AUTHENTICATED_DEFAULT = 'no-store';

/**
 * A request is authenticated when it sends credentials (DPoP or Bearer tokens, an address
 * book's Basic password) or reaches a route that requires them, so a refused attempt (401) is
 * covered as well as an accepted one.
 */
export function isAuthenticatedRequest(request: FastifyRequest): boolean {
  if (request.headers.authorization !== undefined) return true;
  const auth = request.routeOptions.config?.auth;
  return auth !== undefined && auth !== 'none';
}

export const cacheControlPlugin = fp(async (app: FastifyInstance) => {
  // Set before any handler runs, so an answer of any status, refusals included, carries it; a
  // route that knows better overwrites it.
  app.addHook('onRequest', (request, reply, done) => {
    if (isAuthenticatedRequest(request)) reply.header('Cache-Control', AUTHENTICATED_DEFAULT);
    done();
  });
}, { name: 'cache-control' });
