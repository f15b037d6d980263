import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { EventService } from './service.js';
import { AppError } from '../../platform/errors.js';
import { problem } from '../../platform/http/schemas.js';
import { EventPage, EventsQuery } from './schemas.js';

/** The polling side of event-then-pull (PRODUCT §7); the stream is in events-stream.ts. */
export async function eventRoutes(app: FastifyInstance, opts: { events: EventService; retentionDays: number }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/events', {
    config: { auth: 'session' },
    schema: {
      tags: ['events'],
      summary: 'Signals after a cursor, oldest first (polling)',
      description:
        'The same signals, in the same order, as GET /events/stream delivers. Keep next_cursor and send it as `since` next time; ' +
        `has_more says to ask again at once. Signals are kept ${opts.retentionDays} days: a cursor whose successors are gone is ` +
        '410 cursor_expired (pull your resources again, then continue from the new next_cursor). A cursor that was not issued ' +
        'to your account is 400 invalid_cursor.',
      querystring: EventsQuery,
      response: {
        200: EventPage,
        400: problem('Malformed cursor, or one issued to another account (invalid_cursor); limit out of range'),
        410: problem('The signals after this cursor are past the retention (cursor_expired): resync'),
      },
    },
  }, async (request, reply) => {
    const { since, cursor, limit } = request.query;
    if (since !== undefined && cursor !== undefined && since !== cursor) {
      throw new AppError(400, 'invalid_cursor', 'Invalid cursor', { detail: 'send since or cursor, not two different positions' });
    }
    reply.header('Cache-Control', 'no-store');
    return opts.events.list(request.auth!, since ?? cursor, limit ?? 50);
  });
}
