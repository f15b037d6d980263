import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { callerOf } from '../../platform/http/caller.js';
import { NoContent, PageOf, PageQuery, ref } from '../../platform/http/schemas.js';
import { MethodIdParams, TotpAuthenticator, TotpCodeBody, TotpEnrollBody, TotpEnrollment } from './schemas.js';
import type { TotpService } from './totp.js';

/** TOTP authenticators (RFC 6238), optional, several per account. */
export async function totpRoutes(app: FastifyInstance, opts: { totp: TotpService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { totp } = opts;

  r.post('/auth/totp', {
    config: { auth: 'session', stepUp: true, idempotency: 'required' },
    schema: {
      tags: ['auth'],
      summary: 'Start enrolling an authenticator app (step-up)',
      description: 'Returns the secret and otpauth:// URI once; the authenticator stays pending until POST /auth/totp/{id}/confirm with a first valid code.',
      body: TotpEnrollBody,
      response: { 201: TotpEnrollment },
    },
  }, async (request, reply) => {
    const enrollment = await totp.enroll(callerOf(request), request.body.name, await request.client());
    reply.header('Cache-Control', 'no-store');
    return reply.code(201).send(enrollment);
  });

  r.post('/auth/totp/:id/confirm', {
    config: { auth: 'session', refusals: [['totp_not_found', 'no authenticator of yours has this id'], 'totp_already_active', ['totp_code_invalid', 'a wrong, expired or reused code']] },
    schema: {
      tags: ['auth'],
      summary: 'Activate an authenticator with a first valid code',
      description: 'An authenticator app added with POST /auth/totp counts as a factor only once it answers one valid code: 422 totp_code_invalid for a wrong one, 409 totp_already_active when it is active already.',
      params: MethodIdParams,
      body: TotpCodeBody,
      response: {
        200: ref(TotpAuthenticator),
      },
    },
  }, async (request) => totp.confirm(callerOf(request), request.params.id, request.body.code, await request.client()));

  r.get('/auth/totp', {
    config: { auth: 'session' },
    schema: {
      tags: ['auth'],
      summary: 'List your authenticator apps (no secrets)',
      description: 'Oldest first, a page at a time (limit and cursor).',
      querystring: PageQuery,
      response: { 200: PageOf(ref(TotpAuthenticator), 'TotpList') },
    },
  }, async (request) => totp.list(callerOf(request), request.query.cursor, request.query.limit ?? 50));

  r.delete('/auth/totp/:id', {
    config: { auth: 'session', stepUp: true, refusals: [['totp_not_found', 'no authenticator of yours has this id']] },
    schema: {
      tags: ['auth'],
      summary: 'Remove an authenticator app (step-up)',
      description: 'Removes an authenticator app after a passkey check (VID-Step-Up). Without one, the join factor path asks for the recovery key instead.',
      params: MethodIdParams,
      response: { 204: NoContent },
    },
  }, async (request, reply) => {
    await totp.remove(callerOf(request), request.params.id, await request.client());
    return reply.code(204).send(null);
  });
}
