import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { callerOf } from '../../platform/http/caller.js';
import { NoContent, PageOf, PageQuery, ref } from '../../platform/http/schemas.js';
import type { RouteRefusal } from '../../platform/refusals.js';
import { CreatedDavTokenSchema, DAV_TOKEN_LIMITS, DavTokenCreateBody, DavTokenIdParams, DavTokenSchema } from './schemas.js';
import type { DavTokenService } from './service.js';

const NOT_FOUND = ['dav_token_not_found', 'you have no address-book password with this id'] as const satisfies RouteRefusal;

/** Address-book passwords (PRODUCT §9): create (step-up, shown once), list, revoke one or all. */
export async function davTokenRoutes(app: FastifyInstance, opts: { tokens: DavTokenService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { tokens } = opts;
  const tags = ['address-books'];

  r.post('/dav-tokens', {
    config: {
      auth: 'session',
      stepUp: true,
      idempotency: 'required',
      refusals: [['validation_failed', `the label is empty or longer than ${DAV_TOKEN_LIMITS.labelLength} characters once trimmed, or holds control characters`], ['dav_token_limit', `you hold ${DAV_TOKEN_LIMITS.perAccount} already; revoke one first`]],
    },
    schema: {
      tags,
      summary: 'Create an address-book password (step-up)',
      description:
        'For a phone or desktop address book (CardDAV, read-only: the people you follow). Enter server_url, username and secret there; ' +
        `the secret is shown in this answer only (a replay of the same Idempotency-Key shows it again for 24 hours). At most ${DAV_TOKEN_LIMITS.perAccount} per account.`,
      body: DavTokenCreateBody,
      response: { 201: ref(CreatedDavTokenSchema) },
    },
  }, async (request, reply) => {
    reply.header('Cache-Control', 'no-store');
    return reply.code(201).send(await tokens.create(callerOf(request), request.body.label, await request.client()));
  });

  r.get('/dav-tokens', {
    config: { auth: 'session' },
    schema: {
      tags,
      summary: 'Your address-book passwords (never the passwords)',
      description: 'Oldest first, with when and by which client each was last used.',
      querystring: PageQuery,
      response: { 200: PageOf(ref(DavTokenSchema), 'DavTokenPage') },
    },
  }, async (request, reply) => {
    reply.header('Cache-Control', 'no-store');
    return tokens.list(callerOf(request), request.query.cursor, request.query.limit ?? 50);
  });

  r.delete('/dav-tokens/:id', {
    config: { auth: 'session', refusals: [NOT_FOUND] },
    schema: {
      tags,
      summary: 'Revoke an address-book password',
      description: 'The address book using it is refused from its next request on.',
      params: DavTokenIdParams,
      response: { 204: NoContent },
    },
  }, async (request, reply) => {
    await tokens.revoke(callerOf(request), request.params.id, await request.client());
    return reply.code(204).send(null);
  });

  r.delete('/dav-tokens', {
    config: { auth: 'session' },
    schema: { tags, summary: 'Revoke every address-book password', description: 'Every address-book password of the account stops working at once: each phone\'s next sync is refused until it is given a new password.', response: { 204: NoContent } },
  }, async (request, reply) => {
    await tokens.revokeAll(callerOf(request), await request.client());
    return reply.code(204).send(null);
  });
}
