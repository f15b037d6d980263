import type { FastifyRequest } from 'fastify';
import type { AuthContext } from '../caller.js';

/**
 * The caller of a route declared `config: { auth: 'session' }`: the dpop-auth plugin has
 * authenticated it before any handler runs (or refused the request), so a handler reads it
 * here instead of asserting `request.auth!`. Asked for by a route that does not declare
 * `auth: 'session'`, it throws a programming error (a 500), never a refusal to the client.
 */
export function callerOf(request: FastifyRequest): AuthContext {
  const auth = request.auth;
  if (auth === undefined) {
    const { url, config } = request.routeOptions;
    throw new Error(`${request.method} ${url} asked for its caller but declares auth: ${config.auth ?? 'none'}; only auth: 'session' routes have one`);
  }
  return auth;
}
