import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { refuse } from '../../platform/errors.js';

const Health = Type.Object({ status: Type.String() }, { additionalProperties: false });

/** Probes for orchestrators, outside /api/v1: live = the process answers; ready = the database does too. */
export async function healthRoutes(app: FastifyInstance, opts: { ping(): Promise<void>; isClosing(): boolean }) {
  const config = { rateLimit: 'probe' as const };
  app.get('/health/live', { config, schema: { hide: true, response: { 200: Health } } }, async () => ({ status: 'ok' }));
  app.get('/health/ready', { config, schema: { hide: true, response: { 200: Health } } }, async () => {
    if (opts.isClosing()) throw refuse('shutting_down', { detail: 'this node is draining', retryAfterSeconds: 1 });
    try {
      await opts.ping();
    } catch (error) {
      throw refuse('database_unavailable', { detail: 'the database does not answer', retryAfterSeconds: 5, cause: error });
    }
    return { status: 'ok' };
  });
}
