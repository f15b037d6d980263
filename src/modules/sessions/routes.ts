import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { callerOf } from '../../platform/http/caller.js';
import { NoContent, PageOf, PageQuery, ref } from '../../platform/http/schemas.js';
import { RenewBody, Session, SessionIdParams, Tokens } from './schemas.js';
import type { SessionService } from './service.js';

/** Token renewal, logout and the account's sessions (PRODUCT §1). */
export async function sessionRoutes(app: FastifyInstance, opts: { sessions: SessionService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { sessions } = opts;

  r.post('/auth/token/renew', {
    config: { rateLimit: 'auth', auth: 'proof' },
    schema: {
      tags: ['auth'],
      summary: 'Renew tokens (refresh-token rotation)',
      description: 'The proof must be made by the key the session is bound to. Each refresh token works once; presenting a used one revokes the whole session (401 refresh_token_reused).',
      body: RenewBody,
      response: { 200: ref(Tokens) },
    },
  }, async (request, reply) => {
    const tokens = await sessions.renew(request.body.refresh_token, request.dpopJkt as string);
    reply.header('Cache-Control', 'no-store');
    return tokens;
  });

  r.post('/auth/logout', {
    config: { auth: 'session', openWhileDeleted: true },
    schema: { tags: ['auth'], summary: 'Revoke the current session', description: 'Ends the session whose access token made this request (its refresh token too); the account\'s other sessions stay. Works while the account is deleted.', response: { 204: NoContent } },
  }, async (request, reply) => {
    await sessions.logout(callerOf(request));
    return reply.code(204).send(null);
  });

  r.get('/auth/sessions', {
    config: { auth: 'session' },
    schema: {
      tags: ['auth'],
      summary: 'List your live sessions',
      description: 'Every live session of the account, a page at a time (limit and cursor); `current` marks the one making this request.',
      querystring: PageQuery,
      response: { 200: PageOf(ref(Session), 'SessionPage') },
    },
  }, async (request) => sessions.list(callerOf(request), request.query.cursor, request.query.limit ?? 50));

  r.delete('/auth/sessions/:id', {
    config: { auth: 'session', refusals: [['session_not_found', 'no live session of yours has this id']] },
    schema: {
      tags: ['auth'],
      summary: 'Revoke one of your sessions',
      description: 'Ends that session at once: its access and refresh tokens stop working. 404 session_not_found when no live session of yours has this id.',
      params: SessionIdParams,
      response: { 204: NoContent },
    },
  }, async (request, reply) => {
    await sessions.revoke(callerOf(request), request.params.id, await request.client());
    return reply.code(204).send(null);
  });
}
