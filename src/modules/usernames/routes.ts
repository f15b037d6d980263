import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ref } from '../../platform/http/schemas.js';
import { UsernameCheckBody, UsernameCheckResult } from './schemas.js';
import type { UsernameService } from './service.js';

export async function usernameRoutes(app: FastifyInstance, opts: { usernames: UsernameService }) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/auth/username/check',
    {
      config: { rateLimit: 'auth' },
      schema: {
        tags: ['auth'],
        summary: 'Is this username available?',
        description: 'Applies every username rule (normalisation, reserved list, confusable skeleton) and reserves nothing: uniqueness is enforced atomically at /auth/register/finish.',
        body: UsernameCheckBody,
        response: { 200: ref(UsernameCheckResult) },
      },
    },
    async (request) => ({ ...(await opts.usernames.check(request.body.username)), schema_version: 1 as const }),
  );
}
