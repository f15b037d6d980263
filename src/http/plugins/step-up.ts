import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { StepUpService } from '../../domain/step-up.js';

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
export const stepUpPlugin = fp(async (app: FastifyInstance, opts: { stepUp: StepUpService }) => {
  app.addHook('preHandler', async function requireStepUp(request) {
    if (!request.routeOptions.config.stepUp || !request.auth) return;
    const header = request.headers['vid-step-up'];
    await opts.stepUp.verify(request.auth, typeof header === 'string' ? header : undefined);
  });
}, { name: 'step-up' });
