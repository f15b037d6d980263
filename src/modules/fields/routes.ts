import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FieldService } from './service.js';
import { callerOf } from '../../platform/http/caller.js';
import { ifMatched, setEtag, versionOf } from '../../platform/http/preconditions.js';
import { API_PREFIX } from '../../platform/http/plugins/openapi.js';
import { NoContent, PageOf, ref } from '../../platform/http/schemas.js';
import type { RouteRefusal } from '../../platform/refusals.js';
import { FieldCreateBody, FieldIdParams, FieldListQuery, FieldPatchBody, FieldSchema } from './schemas.js';

const JUDGED =
  'The value is judged by the catalog (GET /field-types): 400 validation_failed with errors[] ({path, code, message}) when it ' +
  'breaks a rule; 400 unknown_field_type, invalid_country, country_required or country_not_applicable; 413 ' +
  'field_value_too_large past 4096 bytes as JSON. Stored normalised; what was typed is kept in `original` when it differs.';

/** What judging a value may refuse (JUDGED). */
const JUDGED_REFUSALS = [
  'unknown_field_type', 'invalid_country', 'country_required', 'country_not_applicable',
  ['field_value_too_large', 'the value is larger than 4096 bytes as JSON'],
] as const satisfies readonly RouteRefusal[];
const NOT_FOUND = ['field_not_found', 'you have no field with this id'] as const satisfies RouteRefusal;

/** The caller's identity fields (PRODUCT §2). */
export async function fieldRoutes(app: FastifyInstance, opts: { fields: FieldService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { fields } = opts;

  r.get('/me/fields', {
    config: { auth: 'session', refusals: ['unknown_field_type'] },
    schema: {
      tags: ['identity'],
      summary: 'List your fields',
      description: 'In creation order. `type` narrows to one field type (unknown: 400 unknown_field_type).',
      querystring: FieldListQuery,
      response: { 200: PageOf(ref(FieldSchema), 'FieldPage') },
    },
  }, async (request) => fields.list(callerOf(request), request.query.cursor, request.query.limit ?? 50, request.query.type));

  r.post('/me/fields', {
    config: { auth: 'session', idempotency: 'required', refusals: [...JUDGED_REFUSALS, 'field_limit_reached', 'single_field_exists'] },
    schema: {
      tags: ['identity'],
      summary: 'Add a field',
      description: `Needs Idempotency-Key. ${JUDGED} An account holds at most 200 fields (409 field_limit_reached); types that are not \`multiple\` allow one field (409 single_field_exists).`,
      body: FieldCreateBody,
      response: {
        201: ref(FieldSchema),
      },
    },
  }, async (request, reply) => {
    const field = await fields.create(callerOf(request), request.body);
    setEtag(reply, field.version);
    reply.header('Location', `${API_PREFIX}/me/fields/${field.id}`);
    return reply.code(201).send(field);
  });

  r.get('/me/fields/:id', {
    config: { auth: 'session', refusals: [NOT_FOUND] },
    schema: { tags: ['identity'], summary: 'One of your fields', description: 'One field of the account with its type, value and version; the version is the ETag PATCH /me/fields/{id} takes as If-Match.', params: FieldIdParams, response: { 200: ref(FieldSchema) } },
  }, async (request, reply) => {
    const field = await fields.get(callerOf(request), request.params.id);
    setEtag(reply, field.version);
    return field;
  });

  r.patch('/me/fields/:id', {
    config: { ifMatch: 'required', auth: 'session', idempotency: 'optional', refusals: [NOT_FOUND, ...JUDGED_REFUSALS] },
    schema: {
      tags: ['identity'],
      summary: 'Change a field\'s label, value or country',
      description: `Needs If-Match with the ETag of the last GET. ${JUDGED} A new country alone re-reads what was typed. Idempotency-Key is honoured when sent.`,
      params: FieldIdParams,
      body: FieldPatchBody,
      response: {
        200: ref(FieldSchema),
      },
    },
  }, async (request, reply) => {
    const field = await ifMatched(request, versionOf(() => fields.get(callerOf(request), request.params.id)), (version) => fields.update(callerOf(request), request.params.id, version, request.body));
    setEtag(reply, field.version);
    return field;
  });

  r.delete('/me/fields/:id', {
    config: { ifMatch: 'required', auth: 'session', refusals: [NOT_FOUND] },
    schema: {
      tags: ['identity'],
      summary: 'Delete a field',
      description: 'Needs If-Match with the ETag of the last GET.',
      params: FieldIdParams,
      response: {
        204: NoContent,
      },
    },
  }, async (request, reply) => {
    await ifMatched(request, versionOf(() => fields.get(callerOf(request), request.params.id)), (version) => fields.remove(callerOf(request), request.params.id, version));
    return reply.code(204).send(null);
  });
}
