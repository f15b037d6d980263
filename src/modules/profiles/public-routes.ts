import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { refuse } from '../../platform/errors.js';
import { attachment } from '../../platform/http/attachment.js';
import { notModified } from '../../platform/http/preconditions.js';
import { NotModified, ref } from '../../platform/http/schemas.js';
import { ifNoneMatch, sendStored } from '../../platform/http/stored-representation.js';
import { CardSchema, PublicParams, VCARD_REFUSAL, vcardFormOf, VcardHeaders, VcardQuery } from './schemas.js';
import type { ProfileService } from './service.js';
import type { RouteRefusal } from '../../platform/refusals.js';

const NO_CARD = ['profile_not_found', 'no such user, or no public profile: the same answer for both'] as const satisfies RouteRefusal;
// PRODUCT §6: anyone may read a public card, from any origin, and caches may keep it a minute.
const CACHE_CONTROL = 'public, max-age=60';

function openToAnyOrigin(reply: FastifyReply): FastifyReply {
  return reply.header('Access-Control-Allow-Origin', '*').header('Access-Control-Expose-Headers', 'ETag, Content-Disposition, VID-Request-Id');
}

/** The public card and its vCard (PRODUCT §6): no authentication, CORS open, cacheable. */
export async function publicRoutes(app: FastifyInstance, opts: { profiles: ProfileService; canonicalOf(username: string): string | undefined }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { profiles } = opts;

  /** The public card of a username; unknown names, invalid names and no public profile are one 404. */
  async function publicCard(username: string, ifNoneMatch?: string) {
    const canonical = opts.canonicalOf(username);
    const card = canonical ? await profiles.publicCard(canonical, ifNoneMatch) : undefined;
    if (!card) throw refuse('profile_not_found', 'nobody with this username shows a public card');
    return card;
  }

  r.get('/public/:username', {
    config: { refusals: [NO_CARD] },
    schema: {
      tags: ['public'],
      summary: 'A person\'s public card',
      description: 'No authentication, any origin (CORS *). Cache-Control: public, max-age=60; strong ETag, If-None-Match answers 304.',
      params: PublicParams,
      response: { 200: ref(CardSchema), 304: NotModified },
    },
  }, async (request, reply) => sendStored(request, openToAnyOrigin(reply), await publicCard(request.params.username, ifNoneMatch(request)), CACHE_CONTROL));

  r.get('/public/:username/vcard', {
    config: { refusals: [NO_CARD, VCARD_REFUSAL] },
    schema: {
      tags: ['public'],
      summary: 'A person\'s public card as a vCard file',
      description:
        'text/vcard; charset=utf-8, as an attachment named after the person (an ASCII `filename` beside the UTF-8 `filename*`). ' +
        '3.0 (RFC 2426) by default, which iPhone and Android contacts apps import ("Add to contacts"); 4.0 (RFC 6350) on ?version=4.0 ' +
        'or Accept: text/vcard; version=4.0, with RFC 9554\'s properties only on rfc9554=true. Each version has its own ETag (Vary: Accept). ' +
        'UID is stable per person, so a re-import updates the contact. Cacheable like the card.',
      params: PublicParams,
      querystring: VcardQuery,
      headers: VcardHeaders,
      produces: ['text/vcard'],
      response: {
        200: { description: 'The vCard', content: { 'text/vcard': { schema: Type.String() } } },
        304: NotModified,
      },
    },
  }, async (request, reply) => {
    const form = vcardFormOf(request.query, request.headers.accept);
    const card = await publicCard(request.params.username);
    // One representation per card and form: the card's tag, told apart by version (card.ts).
    const etag = profiles.cardEtag(card.etag, { vcard: form.version, rfc9554: form.rfc9554 });
    openToAnyOrigin(reply).header('ETag', etag).header('Cache-Control', CACHE_CONTROL).header('Vary', 'Accept');
    if (notModified(request, etag)) return (reply as FastifyReply).code(304).send();
    const parsed = JSON.parse(card.json!);
    const username = parsed.owner.username as string;
    reply.header('Content-Disposition', attachment(username, 'vcf', 'contact'));
    const photos = await profiles.vcardPhotosOf([parsed]);
    return reply.type('text/vcard; charset=utf-8').send(profiles.vcardOf(parsed, card.accountId, form.version, { rfc9554: form.rfc9554, photos }));
  });

  // A script on another origin that sends If-None-Match itself needs a preflight (Fetch §4.8).
  for (const url of ['/public/:username', '/public/:username/vcard']) {
    app.options(url, { schema: { hide: true }, config: { rateLimit: 'public' } }, async (_request, reply) =>
      openToAnyOrigin(reply)
        .header('Access-Control-Allow-Methods', 'GET')
        .header('Access-Control-Allow-Headers', 'If-None-Match')
        .header('Access-Control-Max-Age', '600')
        .code(204)
        .send(),
    );
  }
}
