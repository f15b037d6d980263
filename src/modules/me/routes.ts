import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { callerOf } from '../../platform/http/caller.js';
import { ifMatched, setEtag } from '../../platform/http/preconditions.js';
import { ref } from '../../platform/http/schemas.js';
import { MePatchBody, MeSchema } from './schemas.js';
import type { MeService } from './service.js';

export async function meRoutes(app: FastifyInstance, opts: { me: MeService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/me', {
    config: { auth: 'session', openWhileDeleted: true },
    schema: { tags: ['identity'], summary: 'The identity of the caller', description: 'The account the access token belongs to: its id, username and settings, with its version as the ETag that PATCH /me takes as If-Match. Answers while the account is deleted, so a client can offer to restore it.', response: { 200: ref(MeSchema) } },
  }, async (request, reply) => {
    const me = opts.me.get(callerOf(request));
    setEtag(reply, me.version);
    return me;
  });

  r.patch('/me', {
    config: { ifMatch: 'required', auth: 'session', idempotency: 'optional' },
    schema: {
      tags: ['identity'],
      summary: 'Change display name, locale or default country',
      description: 'Needs If-Match with the ETag of the last GET. Idempotency-Key is honoured when sent.',
      body: MePatchBody,
      response: {
        200: ref(MeSchema),
      },
    },
  }, async (request, reply) => {
    const me = await ifMatched(request, () => opts.me.currentVersion(callerOf(request)), (version) => opts.me.update(callerOf(request), version, request.body));
    setEtag(reply, me.version);
    return me;
  });
}
