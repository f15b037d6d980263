import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { callerOf } from '../../platform/http/caller.js';
import { PageOf, PageQuery, ref } from '../../platform/http/schemas.js';
import { SecurityLogEntry } from './schemas.js';
import type { SecurityLog } from './service.js';

export async function securityLogRoutes(app: FastifyInstance, opts: { securityLog: SecurityLog }) {
  app.withTypeProvider<TypeBoxTypeProvider>().get('/auth/security-log', {
    config: { auth: 'session' },
    schema: {
      tags: ['auth'],
      summary: 'Your account\'s security log, newest first',
      description: 'Sign-ins, passkeys and authenticator apps added or removed, sessions revoked, recovery and the other security events of the account, newest first, a page at a time (limit and cursor); each entry names its kind and the device and address it came from.',
      querystring: PageQuery,
      response: { 200: PageOf(ref(SecurityLogEntry), 'SecurityLogPage') },
    },
  }, async (request) => opts.securityLog.list(callerOf(request), request.query.cursor, request.query.limit ?? 50));
}
