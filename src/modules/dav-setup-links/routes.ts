import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../../platform/errors.js';
import { callerOf } from '../../platform/http/caller.js';
import { attachment } from '../../platform/http/attachment.js';
import { NoContent, ref } from '../../platform/http/schemas.js';
import type { RouteRefusal } from '../../platform/refusals.js';
import { MOBILECONFIG_TYPE } from './mobileconfig.js';
import { CreatedSetupLinkSchema, RedeemedSetupLinkSchema, SETUP_LINK_MINUTES, SetupLinkCreateBody, SetupLinkIdParams, SetupLinkSchema, SetupLinkSecretBody } from './schemas.js';
import type { DavSetupLinkService } from './service.js';

const NOT_FOUND = ['setup_link_not_found', 'you have no setup link with this id'] as const satisfies RouteRefusal;
const GONE = ['setup_link_gone', 'the link was used, has expired, was withdrawn, or never existed'] as const satisfies RouteRefusal;
const TYPED = ['validation_failed', 'the code is not eight letters and digits, or the body names both a token and a code'] as const satisfies RouteRefusal;
const FULL = ['dav_token_limit', 'the account holds 10 address-book passwords already'] as const satisfies RouteRefusal;
/** A form's fields, as a browser posts them (HTML §4.10.21.7): the phone's page submits one so the profile downloads natively. */
const FORM = 'application/x-www-form-urlencoded';
/** Where a refused form post sends the phone back: its page, which says what happened in words. */
const PHONE_PAGE = '/p/';

/** Setup links (PRODUCT §9): carry an address-book password to a phone in one scan. */
export async function davSetupLinkRoutes(app: FastifyInstance, opts: { links: DavSetupLinkService }) {
  const { links } = opts;
  const tags = ['address-books'];
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post('/dav-setup-links', {
    config: { auth: 'session', stepUp: true, idempotency: 'required', refusals: [['validation_failed', 'the label is empty or too long once trimmed, or holds control characters']] },
    schema: {
      tags,
      summary: 'Make a setup link for a phone (step-up)',
      description:
        `A single-use link, valid ${SETUP_LINK_MINUTES} minutes, and the same link as an eight-character code to type at PUBLIC_ORIGIN/p. Show the link as a QR code; ` +
        'opened on a phone, its page makes an address-book password for that phone and hands it over without typing: a configuration profile on iPhone, iPad and Mac ' +
        '(POST /dav-setup-links/profile), DAVx5\'s filled-in login on Android (POST /dav-setup-links/redeem), the plain values otherwise. Opening the page does not use the link, ' +
        'so link previews and prefetches cannot. Follow it with GET /dav-setup-links/{id}: `dav-tokens.changed` signals when a phone uses it and again at the phone\'s first sync.',
      body: SetupLinkCreateBody,
      response: { 201: ref(CreatedSetupLinkSchema) },
    },
  }, async (request, reply) => {
    reply.header('Cache-Control', 'no-store');
    return reply.code(201).send(await links.create(callerOf(request), request.body.label));
  });

  r.get('/dav-setup-links/:id', {
    config: { auth: 'session', refusals: [NOT_FOUND] },
    schema: { tags, summary: 'A setup link: waiting, used or expired', description: 'Never its token or code. Kept a day after it ends.', params: SetupLinkIdParams, response: { 200: ref(SetupLinkSchema) } },
  }, async (request, reply) => {
    reply.header('Cache-Control', 'no-store');
    return links.get(callerOf(request), request.params.id);
  });

  r.delete('/dav-setup-links/:id', {
    config: { auth: 'session', refusals: [NOT_FOUND] },
    schema: { tags, summary: 'Withdraw a setup link', description: 'A phone that opens it afterwards is told it is gone. The password of a phone that already used it stays: revoke that under /dav-tokens.', params: SetupLinkIdParams, response: { 204: NoContent } },
  }, async (request, reply) => {
    await links.cancel(callerOf(request), request.params.id);
    return reply.code(204).send(null);
  });

  r.post('/dav-setup-links/redeem', {
    config: { auth: 'none', rateLimit: 'auth', idempotency: 'none', refusals: [GONE, TYPED, FULL] },
    schema: {
      tags,
      summary: 'Use a setup link on the phone: its password and hand-overs',
      description:
        'Uses the link once and answers a new address-book password, named after the link\'s label or the phone, with a link that opens DAVx5\'s login filled in. ' +
        'No Idempotency-Key: the link is its own single use; an answer lost on the way leaves the link used, and the person makes a new one. ' +
        'A used, expired, withdrawn or unknown link answers the same 410 setup_link_gone. Counted per client address like sign-in routes.',
      body: SetupLinkSecretBody,
      response: { 201: ref(RedeemedSetupLinkSchema) },
    },
  }, async (request, reply) => {
    reply.header('Cache-Control', 'no-store');
    const { created } = await links.redeem(request.body, await request.client());
    return reply.code(201).send(created);
  });

  await app.register(async (scope) => {
    scope.addContentTypeParser(FORM, { parseAs: 'string', bodyLimit: 1024 }, (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))));
    const s = scope.withTypeProvider<TypeBoxTypeProvider>();
    s.post('/dav-setup-links/profile', {
      config: { auth: 'none', rateLimit: 'auth', idempotency: 'none', refusals: [GONE, TYPED, FULL] },
      schema: {
        tags,
        summary: 'Use a setup link on an iPhone, iPad or Mac: the configuration profile',
        description:
          'Uses the link once, like /redeem, and answers the Apple configuration profile that adds the address book (com.apple.carddav.account) as a download. ' +
          'The phone\'s page posts it as a form so the browser hands the file to Settings; a refused form post is redirected (303) to the page with `?problem=<code>`, ' +
          'while a JSON body gets the problem itself.',
        consumes: [FORM, 'application/json'],
        body: SetupLinkSecretBody,
        response: {
          200: { description: 'The configuration profile (a property list)', content: { [MOBILECONFIG_TYPE]: { schema: Type.String() } } },
          303: { description: 'A refused form post: back to the phone\'s page, which names the problem', type: 'null' },
        },
      },
    }, async (request, reply) => {
      reply.header('Cache-Control', 'no-store');
      try {
        const { handover } = await links.redeem(request.body, await request.client());
        reply.header('Content-Disposition', attachment('VID contacts', 'mobileconfig', 'VID-contacts'));
        return reply.type(MOBILECONFIG_TYPE).send(handover.profile());
      } catch (error) {
        const fromForm = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase() === FORM;
        if (!fromForm || !(error instanceof AppError) || error.status >= 500) throw error;
        return reply.code(303).header('Location', `${PHONE_PAGE}?problem=${encodeURIComponent(error.code)}`).send(null);
      }
    });
  });
}
