import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { AuthContext } from '../../caller.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route is sensitive: it needs a VID-Step-Up assertion (spec: Authentication 2). */
    stepUp?: boolean;
  }
}

/**
 * `requireStepUp`: runs after authentication and idempotency, so a replayed idempotent request
 * (which changes nothing) needs no second assertion, and a refused step-up is never recorded as
 * the key's answer.
 */
export const stepUpPlugin = fp(async (app: FastifyInstance, opts: { verify(auth: AuthContext, header: string | undefined): Promise<void> }) => {
  // A callback hook, so the routes that need no step-up (nearly all requests) make no promise.
  app.addHook('preHandler', function requireStepUp(request, _reply, done) {
    if (!request.routeOptions.config.stepUp || !request.auth) return done();
    const header = request.headers['vid-step-up'];
    opts.verify(request.auth, typeof header === 'string' ? header : undefined).then(() => done(), done);
  });
}, { name: 'step-up' });
