import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { callerOf } from '../../platform/http/caller.js';
import { API_PREFIX } from '../../platform/http/plugins/openapi.js';
import { NoContent, PageOf, PageQuery, ref } from '../../platform/http/schemas.js';
import type { ContactService } from '../contacts/contacts.js';
import { ContactSchema } from '../contacts/schemas.js';
import { IdParams, ResolvedShareLinkSchema, ShareLinkCreateBody, ShareLinkSchema, TokenBody, TokenQuery } from './schemas.js';
import type { ShareLinkService } from './service.js';
import type { RouteRefusal } from '../../platform/refusals.js';

const UNKNOWN = ['share_link_not_found', 'no share link has this token'] as const satisfies RouteRefusal;
const GONE = ['share_link_gone', 'revoked, expired or used up'] as const satisfies RouteRefusal;
/** Share links (PRODUCT §6): the owner creates, lists and revokes; anyone resolves; a signed-in person redeems. */
export async function shareLinkRoutes(app: FastifyInstance, opts: { links: ShareLinkService; contacts: ContactService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { links } = opts;
  const tags = ['sharing'];

  r.post('/share-links', {
    config: { auth: 'session', idempotency: 'required', refusals: [['profile_not_found', 'you have no profile with this id']] },
    schema: {
      tags,
      summary: 'Create a share link to one of your profiles',
      description: 'Show its url as a QR code or send it. Whoever opens it can subscribe: active at once with auto_approve, else waiting for you. The token is kept sealed so you can show it again.',
      body: ShareLinkCreateBody,
      response: { 201: ref(ShareLinkSchema) },
    },
  }, async (request, reply) => {
    reply.header('Cache-Control', 'no-store');
    return reply.code(201).send(await links.create(callerOf(request), request.body));
  });

  r.get('/share-links', {
    config: { auth: 'session' },
    schema: { tags, summary: 'Your share links (not revoked)', description: 'The share links you made and did not revoke, a page at a time (limit and cursor), each with the profile it shares.', querystring: PageQuery, response: { 200: PageOf(ref(ShareLinkSchema), 'ShareLinkPage') } },
  }, async (request, reply) => {
    reply.header('Cache-Control', 'no-store');
    return links.list(callerOf(request), request.query.cursor, request.query.limit ?? 50);
  });

  r.delete('/share-links/:id', {
    config: { auth: 'session', refusals: [['share_link_not_found', 'you have no share link with this id']] },
    schema: { tags, summary: 'Revoke a share link', description: 'The link stops working at once: following it answers that it is no longer valid.', params: IdParams, response: { 204: NoContent } },
  }, async (request, reply) => {
    await links.revoke(callerOf(request), request.params.id);
    return reply.code(204).send(null);
  });

  r.get('/share-links/resolve', {
    config: { rateLimit: 'auth', refusals: [UNKNOWN, GONE] },
    schema: {
      tags,
      summary: 'Whose link is this? (no sign-in)',
      description: 'The owner\'s name, whether the link approves at once and until when, nothing more: what the person scanning the code sees before subscribing ("Alice wants to share her card with you"). Never the profile\'s name, which is the owner\'s private word for an audience, nor its fields.',
      querystring: TokenQuery,
      response: { 200: ResolvedShareLinkSchema },
    },
  }, async (request, reply) => {
    reply.header('Cache-Control', 'no-store');
    return links.resolve(request.query.token);
  });

  r.post('/share-links/redeem', {
    config: { auth: 'session', idempotency: 'required', refusals: [UNKNOWN, ['already_subscribed', 'contact_id names the contact'], 'contact_limit', GONE, 'cannot_subscribe_to_self'] },
    schema: {
      tags,
      summary: 'Subscribe through a share link',
      description: 'A new contact, active at once when the link approves automatically, else pending. Uses are counted atomically: a one-use link lets exactly one person in.',
      body: TokenBody,
      response: {
        201: ref(ContactSchema),
      },
    },
  }, async (request, reply) => {
    const id = await links.redeem(callerOf(request), request.body.token);
    const contact = await opts.contacts.view(callerOf(request), id);
    reply.header('Location', `${API_PREFIX}/contacts/${id}`);
    return reply.code(201).send(contact);
  });
}
