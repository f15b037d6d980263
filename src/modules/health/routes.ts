import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Store } from '../../platform/store/store.js';
import { AppError } from '../../platform/errors.js';

const Health = Type.Object({ status: Type.String() }, { additionalProperties: false });

/** Probes for orchestrators, outside /api/v1: live = the process answers; ready = the database does too. */
export async function healthRoutes(app: FastifyInstance, opts: { store: Store; isClosing: () => boolean }) {
  const config = { rateLimit: 'none' as const };
  app.get('/health/live', { config, schema: { hide: true, response: { 200: Health } } }, async () => ({ status: 'ok' }));
  app.get('/health/ready', { config, schema: { hide: true, response: { 200: Health } } }, async () => {
    if (opts.isClosing()) throw new AppError(503, 'shutting_down', 'Shutting down', { detail: 'this node is draining', headers: { 'Retry-After': '1' } });
    try {
      await opts.store.ping();
    } catch (error) {
      throw new AppError(503, 'database_unavailable', 'Not ready', { detail: 'the database does not answer', headers: { 'Retry-After': '5' }, cause: error });
    }
    return { status: 'ok' };
  });
}
