import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { refuse } from '../../platform/errors.js';
import { callerOf } from '../../platform/http/caller.js';
import { SignalPage, SignalsQuery } from './schemas.js';
import type { SignalService } from './service.js';

/** The polling side of event-then-pull (PRODUCT §7); the stream is in stream-routes.ts. */
export async function pollRoutes(app: FastifyInstance, opts: { signals: SignalService; retentionDays: number }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/events', {
    config: { auth: 'session', refusals: [['invalid_cursor', 'malformed, or issued to another account'], ['cursor_expired', 'the signals after this cursor are past the retention: resync']] },
    schema: {
      tags: ['events'],
      summary: 'Signals after a cursor, oldest first (polling)',
      description:
        'The same signals, in the same order, as GET /events/stream delivers: your own, and the edits of the cards you receive now ' +
        '(contact.card.changed; several edits of one card since your cursor are one signal). Keep next_cursor and send it as `since` next time; ' +
        `has_more says to ask again at once. Signals are kept ${opts.retentionDays} days: a cursor whose successors are gone is ` +
        '410 cursor_expired (pull your resources again, then continue from the new next_cursor). A cursor that was not issued ' +
        'to your account is 400 invalid_cursor.',
      querystring: SignalsQuery,
      response: {
        200: SignalPage,
      },
    },
  }, async (request, reply) => {
    const { since, cursor, limit } = request.query;
    if (since !== undefined && cursor !== undefined && since !== cursor) {
      throw refuse('invalid_cursor', 'send since or cursor, not two different positions');
    }
    reply.header('Cache-Control', 'no-store');
    return opts.signals.list(callerOf(request), since ?? cursor, limit ?? 50);
  });
}
