import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { attachment } from '../../platform/http/attachment.js';
import { callerOf } from '../../platform/http/caller.js';
import { ifMatched, ifMatchedOptional, notModified, setEtag, versionOf } from '../../platform/http/preconditions.js';
import { API_PREFIX } from '../../platform/http/plugins/openapi.js';
import { NoContent, NotModified, PageOf, PageQuery, ref } from '../../platform/http/schemas.js';
import { ifNoneMatch, sendPageWithStored, sendStored } from '../../platform/http/stored-representation.js';
import { CardSchema, VCARD_REFUSAL, vcardFormOf, VcardHeaders, VcardQuery } from '../profiles/schemas.js';
import type { AnnotationService } from './annotations.js';
import type { ContactService } from './contacts.js';
import { AnnotationBody, AnnotationSchema, ContactSchema, ContactsQuery, IdParams, LabelCount, SubscribeBody } from './schemas.js';
const vcardResponse = { description: 'text/vcard; charset=utf-8', content: { 'text/vcard': { schema: Type.String() } } };
const VERSIONS =
  '3.0 (RFC 2426) by default, which iPhone and Android contacts apps import; 4.0 (RFC 6350) on ?version=4.0 or Accept: text/vcard; version=4.0, ' +
  'with RFC 9554\'s properties only on rfc9554=true (Vary: Accept).';

/** A vCard download named after `name` (an ASCII `filename` beside the UTF-8 `filename*`, RFC 6266). */
function vcardFile(reply: FastifyReply, name: string): FastifyReply {
  return reply.header('Content-Disposition', attachment(name, 'vcf', 'contact')).header('Vary', 'Accept').type('text/vcard; charset=utf-8');
}

/** The subscriber's side: contacts, their cards and private annotations (PRODUCT §4, §5). */
export async function contactRoutes(app: FastifyInstance, opts: { contacts: ContactService; annotations: AnnotationService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { contacts, annotations } = opts;
  const tags = ['contacts'];

  r.post('/contacts', {
    config: { auth: 'session', idempotency: 'required', refusals: ['account_not_found', ['already_subscribed', 'contact_id names the contact'], 'contact_limit', 'cannot_subscribe_to_self'] },
    schema: {
      tags,
      summary: 'Subscribe to someone',
      description:
        'A request the owner approves onto one of their profiles. Yourself: 422 cannot_subscribe_to_self; already pending or active: 409 already_subscribed (with contact_id); ' +
        'unknown user: 404 account_not_found. At most 50 new requests a day (429) and 5,000 contacts (409 contact_limit). ' +
        'Refusals are silent: a request the owner declines, or one from a person they blocked, stays pending to you like one not yet answered, and every request left unanswered ends after 30 days.',
      body: SubscribeBody,
      response: {
        201: ref(ContactSchema),
      },
    },
  }, async (request, reply) => {
    const contact = await contacts.subscribe(callerOf(request), request.body.username, request.body.message);
    setEtag(reply, contact.version);
    reply.header('Location', `${API_PREFIX}/contacts/${contact.id}`);
    return reply.code(201).send(contact);
  });

  r.get('/contacts', {
    config: { auth: 'session' },
    schema: {
      tags,
      summary: 'The people you subscribe to',
      description: '`status` and `label` (your own labels, ignoring case) narrow the list; `q` finds contacts by what you see of them, ignoring case and accents; `sort` orders them by first or last name or by the latest card change; `include=card` brings each contact\'s card as GET /contacts/{id}/card answers it (null where that answer is a refusal), with its ETag. A cursor pages the list it came from (the same q and sort).',
      querystring: ContactsQuery,
      response: { 200: PageOf(ref(ContactSchema), 'ContactPage') },
    },
  }, async (request, reply) => {
    const { status, label, q, sort, include, cursor, limit } = request.query;
    const page = await contacts.list(callerOf(request), { status, label, q, sort }, cursor, limit ?? 50, include === 'card');
    if (include !== 'card') return page;
    // Each card as stored, as GET /contacts/{id}/card sends it: the same bytes, not serialised again.
    return sendPageWithStored(reply, { ...page, data: page.data.map((contact) => ({ ...contact, stored: contact.stored ?? null })) }, 'card');
  });

  r.get('/contacts/vcard', {
    config: { auth: 'session', refusals: [VCARD_REFUSAL] },
    schema: {
      tags,
      summary: 'Every active contact as one vCard file',
      description: `For an address-book import: each contact its own BEGIN…END with a stable UID, so importing again updates instead of duplicating. ${VERSIONS}`,
      querystring: VcardQuery,
      headers: VcardHeaders,
      produces: ['text/vcard'],
      response: { 200: vcardResponse },
    },
  }, async (request, reply) => {
    const text = await contacts.allVcards(callerOf(request), vcardFormOf(request.query, request.headers.accept));
    return vcardFile(reply.header('Cache-Control', 'private, no-store'), 'contacts').send(text);
  });

  r.get('/contacts/:id', {
    config: { auth: 'session', refusals: ['contact_not_found'] },
    schema: { tags, summary: 'One contact', description: 'One person you follow or asked to follow: who, and the status of your request; the card they show you is at GET /contacts/{id}/card.', params: IdParams, response: { 200: ref(ContactSchema) } },
  }, async (request, reply) => {
    const contact = await contacts.view(callerOf(request), request.params.id);
    setEtag(reply, contact.version);
    return contact;
  });

  r.delete('/contacts/:id', {
    config: { auth: 'session', refusals: ['contact_not_found', ['invalid_transition', 'the owner changed the subscription at the same moment: read it again']] },
    schema: {
      tags,
      summary: 'Unsubscribe, or remove an ended contact',
      description: 'pending or active → ended; an ended or revoked contact leaves your list. Your annotation of it goes too.',
      params: IdParams,
      response: { 204: NoContent },
    },
  }, async (request, reply) => {
    await contacts.remove(callerOf(request), request.params.id);
    return reply.code(204).send(null);
  });

  r.get('/contacts/:id/card', {
    config: { auth: 'session', refusals: [['contact_not_active', 'no card'], 'contact_not_found', ['contact_account_deleted', 'its card is back if they restore it'], ['contact_account_unavailable', 'the operator locked their account']] },
    schema: {
      tags,
      summary: 'The card this person shows you',
      description: 'The card of the profile they chose for you (you never learn which). Strong ETag; If-None-Match answers 304. Only while active (403 contact_not_active).',
      params: IdParams,
      response: { 200: ref(CardSchema), 304: NotModified },
    },
  }, async (request, reply) => sendStored(request, reply, await contacts.card(callerOf(request), request.params.id, ifNoneMatch(request)), 'private, no-cache'));

  r.get('/contacts/:id/vcard', {
    config: { auth: 'session', refusals: [['contact_not_active', 'no card'], 'contact_not_found', ['contact_account_deleted', 'its card is back if they restore it'], ['contact_account_unavailable', 'the operator locked their account'], VCARD_REFUSAL] },
    schema: {
      tags,
      summary: 'A contact\'s card as a vCard file',
      description: `The card GET /contacts/{id}/card shows, as a vCard named after the person. ${VERSIONS} Each version has its own strong ETag; If-None-Match answers 304.`,
      params: IdParams,
      querystring: VcardQuery,
      headers: VcardHeaders,
      produces: ['text/vcard'],
      response: { 200: vcardResponse, 304: NotModified },
    },
  }, async (request, reply) => {
    const vcard = await contacts.vcard(callerOf(request), request.params.id, vcardFormOf(request.query, request.headers.accept));
    reply.header('ETag', vcard.etag).header('Cache-Control', 'private, no-cache').header('Vary', 'Accept');
    if (notModified(request, vcard.etag)) return (reply as FastifyReply).code(304).send();
    return vcardFile(reply, vcard.username).send(vcard.text);
  });

  r.get('/contacts/:id/annotation', {
    config: { auth: 'session', refusals: ['contact_not_found', ['annotation_not_found', 'no annotation yet']] },
    schema: { tags: ['annotations'], summary: 'Your private note and labels on a contact', description: 'What you wrote about a contact, which only you see; 404 annotation_not_found until you write one with PUT /contacts/{id}/annotation.', params: IdParams, response: { 200: ref(AnnotationSchema) } },
  }, async (request, reply) => {
    const annotation = await annotations.get(callerOf(request), request.params.id);
    setEtag(reply, annotation.version);
    return annotation;
  });

  r.put('/contacts/:id/annotation', {
    config: { ifMatch: 'optional', auth: 'session', refusals: ['contact_not_found'] },
    schema: {
      tags: ['annotations'],
      summary: 'Write your note and labels on a contact',
      description: 'The first PUT creates it (201, no If-Match); later ones need If-Match (428 without, 412 when stale). Note ≤ 4000 characters; ≤ 20 labels of 1-32 characters, unique ignoring case.',
      params: IdParams,
      body: AnnotationBody,
      response: { 200: ref(AnnotationSchema), 201: ref(AnnotationSchema) },
    },
  }, async (request, reply) => {
    const { created, annotation } = await ifMatchedOptional(request, versionOf(() => annotations.get(callerOf(request), request.params.id)), (ifMatch) => annotations.put(callerOf(request), request.params.id, ifMatch, request.body));
    setEtag(reply, annotation.version);
    return reply.code(created ? 201 : 200).send(annotation);
  });

  r.delete('/contacts/:id/annotation', {
    config: { ifMatch: 'required', auth: 'session', refusals: ['contact_not_found', 'annotation_not_found'] },
    schema: { tags: ['annotations'], summary: 'Delete your annotation of a contact', description: 'Needs If-Match.', params: IdParams, response: { 204: NoContent } },
  }, async (request, reply) => {
    await ifMatched(request, versionOf(() => annotations.get(callerOf(request), request.params.id)), (version) => annotations.remove(callerOf(request), request.params.id, version));
    return reply.code(204).send(null);
  });

  r.get('/labels', {
    config: { auth: 'session' },
    schema: {
      tags: ['annotations'],
      summary: 'Your labels, with how many contacts carry each',
      description: 'In the order of the labels ignoring case, a page at a time (limit and cursor).',
      querystring: PageQuery,
      response: { 200: PageOf(LabelCount, 'LabelList') },
    },
  }, async (request) => annotations.labels(callerOf(request), request.query.cursor, request.query.limit ?? 50));
}
