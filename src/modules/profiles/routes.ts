import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { callerOf } from '../../platform/http/caller.js';
import { ifMatched, setEtag, versionOf } from '../../platform/http/preconditions.js';
import { NoContent, NotModified, PageOf, PageQuery, ref } from '../../platform/http/schemas.js';
import { API_PREFIX } from '../../platform/http/plugins/openapi.js';
import { ifNoneMatch, sendStored } from '../../platform/http/stored-representation.js';
import { CardSchema, ExposureParams, ExposurePutBody, ExposureSchema, ProfileCreateBody, ProfileDeleteQuery, ProfileIdParams, ProfilePatchBody, ProfileSchema } from './schemas.js';
import type { ProfileService } from './service.js';
import type { RouteRefusal } from '../../platform/refusals.js';

const NOT_FOUND = ['profile_not_found', 'you have no profile with this id'] as const satisfies RouteRefusal;
/** Profiles, their exposures and the preview (PRODUCT §3). */
export async function profileRoutes(app: FastifyInstance, opts: { profiles: ProfileService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { profiles } = opts;

  r.get('/profiles', {
    config: { auth: 'session' },
    schema: { tags: ['profiles'], summary: 'List your profiles', description: 'In creation order.', querystring: PageQuery, response: { 200: PageOf(ref(ProfileSchema), 'ProfilePage') } },
  }, async (request) => profiles.list(callerOf(request), request.query.cursor, request.query.limit ?? 50));

  r.post('/profiles', {
    config: { auth: 'session', idempotency: 'required', refusals: ['profile_limit', 'profile_name_taken', 'public_profile_exists'] },
    schema: {
      tags: ['profiles'],
      summary: 'Create a profile',
      description: 'A named view of your fields ("Work", "Family"). At most 20 (409 profile_limit); names are unique ignoring case (409 profile_name_taken); at most one is public (409 public_profile_exists). It starts showing no field.',
      body: ProfileCreateBody,
      response: { 201: ref(ProfileSchema) },
    },
  }, async (request, reply) => {
    const profile = await profiles.create(callerOf(request), request.body);
    setEtag(reply, profile.version);
    reply.header('Location', `${API_PREFIX}/profiles/${profile.id}`);
    return reply.code(201).send(profile);
  });

  r.get('/profiles/:id', {
    config: { auth: 'session', refusals: [NOT_FOUND] },
    schema: { tags: ['profiles'], summary: 'One of your profiles', description: 'One profile (a card you share): its name, description and settings, with its version as the ETag PATCH /profiles/{id} takes as If-Match. Only its owner ever sees its name.', params: ProfileIdParams, response: { 200: ref(ProfileSchema) } },
  }, async (request, reply) => {
    const profile = await profiles.get(callerOf(request), request.params.id);
    setEtag(reply, profile.version);
    return profile;
  });

  r.patch('/profiles/:id', {
    config: { ifMatch: 'required', auth: 'session', idempotency: 'optional', refusals: [NOT_FOUND, 'profile_name_taken', 'public_profile_exists'] },
    schema: {
      tags: ['profiles'],
      summary: 'Rename a profile, describe it, make it public or private',
      description: 'Needs If-Match with the ETag of the last GET.',
      params: ProfileIdParams,
      body: ProfilePatchBody,
      response: { 200: ref(ProfileSchema) },
    },
  }, async (request, reply) => {
    const profile = await ifMatched(request, versionOf(() => profiles.get(callerOf(request), request.params.id)), (version) => profiles.update(callerOf(request), request.params.id, version, request.body));
    setEtag(reply, profile.version);
    return profile;
  });

  r.delete('/profiles/:id', {
    config: { ifMatch: 'required', auth: 'session', refusals: [['profile_not_found', 'no profile of yours has this id, or move_to names none'], ['profile_in_use', 'subscribers see it']] },
    schema: {
      tags: ['profiles'],
      summary: 'Delete a profile',
      description: 'Needs If-Match. A profile active subscribers see is 409 profile_in_use unless move_to names another of your profiles: they move there first (their cards change, they are signalled).',
      params: ProfileIdParams,
      querystring: ProfileDeleteQuery,
      response: { 204: NoContent },
    },
  }, async (request, reply) => {
    await ifMatched(request, versionOf(() => profiles.get(callerOf(request), request.params.id)), (version) => profiles.remove(callerOf(request), request.params.id, version, request.query.move_to));
    return reply.code(204).send(null);
  });

  r.get('/profiles/:id/exposures', {
    config: { auth: 'session', refusals: [NOT_FOUND] },
    schema: {
      tags: ['profiles'],
      summary: 'The fields a profile shows, in order',
      description: 'The fields this profile\'s card shows, in the order the card shows them, a page at a time (limit and cursor).',
      params: ProfileIdParams,
      querystring: PageQuery,
      response: { 200: PageOf(ref(ExposureSchema), 'ExposureList') },
    },
  }, async (request) => profiles.exposures(callerOf(request), request.params.id, request.query.cursor, request.query.limit ?? 50));

  r.put('/profiles/:id/exposures/:field_id', {
    config: { auth: 'session', refusals: [NOT_FOUND, ['field_not_found', 'you have no field with this id']] },
    schema: {
      tags: ['profiles'],
      summary: 'Show a field in a profile, or change its label or place',
      description:
        'Creates the exposure (201, last unless `position` says where) or changes it (200). `position` is 0-based in the profile\'s order ' +
        '(out of range: 400 position_out_of_range); the others keep their order. `label` is shown instead of the field\'s own (null: the field\'s).',
      params: ExposureParams,
      body: ExposurePutBody,
      response: { 200: ref(ExposureSchema), 201: ref(ExposureSchema) },
    },
  }, async (request, reply) => {
    const { created, exposure } = await profiles.putExposure(callerOf(request), request.params.id, request.params.field_id, request.body);
    return reply.code(created ? 201 : 200).send(exposure);
  });

  r.delete('/profiles/:id/exposures/:field_id', {
    config: { auth: 'session', refusals: [NOT_FOUND, ['exposure_not_found', 'the profile does not show the field']] },
    schema: {
      tags: ['profiles'],
      summary: 'Stop showing a field in a profile',
      description: 'The field stays on the account; this profile\'s card stops showing it, and the people who see that card are told their copy changed.',
      params: ExposureParams,
      response: { 204: NoContent },
    },
  }, async (request, reply) => {
    await profiles.removeExposure(callerOf(request), request.params.id, request.params.field_id);
    return reply.code(204).send(null);
  });

  r.get('/profiles/:id/preview', {
    config: { auth: 'session', refusals: [NOT_FOUND] },
    schema: {
      tags: ['profiles'],
      summary: 'The card exactly as this profile\'s audience receives it',
      description: 'Strong ETag of the card; If-None-Match answers 304 while it is unchanged.',
      params: ProfileIdParams,
      response: { 200: ref(CardSchema), 304: NotModified },
    },
  }, async (request, reply) => sendStored(request, reply, await profiles.preview(callerOf(request), request.params.id, ifNoneMatch(request)), 'private, no-cache'));
}
