import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FieldCatalog } from './catalog.js';
import { refuse } from '../../platform/errors.js';
import { notModified } from '../../platform/http/preconditions.js';
import { NotModified, PageOf, PageQuery, ref } from '../../platform/http/schemas.js';
import { FieldType, FieldTypeKeyParams, FieldValidateBody, FieldValidation } from './schemas.js';

const CACHE_CONTROL = 'public, max-age=3600';

/** Sends catalog JSON built once at start, with its content ETag; 304 when the client has it. */
function sendCached(request: FastifyRequest, reply: FastifyReply, cached: { json: string; etag: string }) {
  reply.header('ETag', cached.etag).header('Cache-Control', CACHE_CONTROL);
  if (notModified(request, cached.etag)) return reply.code(304).send();
  // Serialised once at start: sent as is, not serialised again per request.
  return reply.type('application/json; charset=utf-8').serializer((payload: unknown) => payload as string).send(cached.json);
}

/** The public, read-only field catalog (PRODUCT §2). */
export async function catalogRoutes(app: FastifyInstance, opts: { catalog: FieldCatalog; now: () => number }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { catalog } = opts;
  const entryOf = (key: string) => {
    const entry = catalog.entry(key);
    if (!entry) throw refuse('field_type_not_found', `no field type "${key}"; GET /field-types lists them`);
    return entry;
  };

  r.get('/field-types', {
    schema: {
      tags: ['identity'],
      summary: 'The field catalog',
      description:
        'Every field type with its label, whether several are allowed, the JSON Schema of its value and its per-country rules, ' +
        'in a fixed order, paged like every list (limit, cursor); the default page holds the whole catalog today. ' +
        'Public and cacheable: ETag and Cache-Control: public, max-age=3600; send ' +
        'If-None-Match to get 304 while the catalog is unchanged. Limits: an account holds at most 200 fields; a value takes at ' +
        'most 4096 bytes as JSON.',
      querystring: PageQuery,
      response: { 200: PageOf(ref(FieldType), 'FieldTypePage'), 304: NotModified },
    },
  }, async (request, reply) => sendCached(request, reply, catalog.page(request.query.cursor, request.query.limit ?? 50)));

  r.get('/field-types/:key', {
    config: { refusals: ['field_type_not_found'] },
    schema: {
      tags: ['identity'],
      summary: 'One field type',
      description: 'Cacheable like the catalog (ETag, If-None-Match → 304).',
      params: FieldTypeKeyParams,
      response: { 200: ref(FieldType), 304: NotModified },
    },
  }, async (request, reply) => sendCached(request, reply, entryOf(request.params.key)));

  r.post('/field-types/:key/validate', {
    config: { refusals: ['field_type_not_found', 'invalid_country', 'country_required', 'country_not_applicable', ['field_value_too_large', 'the value is larger than 4096 bytes as JSON']] },
    schema: {
      tags: ['identity'],
      summary: 'Check a value against a field type',
      description:
        'Judges a value exactly as POST /me/fields would and answers what would be stored; creates nothing. A value that ' +
        'breaks the rules is 200 with valid: false and errors[] ({path, code, message}). Request-level refusals are problems: ' +
        '400 invalid_country, country_required (types whose rules need a country; there is no account default here) or ' +
        'country_not_applicable; 413 field_value_too_large (more than 4096 bytes as JSON).',
      params: FieldTypeKeyParams,
      body: FieldValidateBody,
      response: {
        200: ref(FieldValidation),
      },
    },
  }, async (request) => {
    const { definition } = entryOf(request.params.key);
    const outcome = catalog.check(definition, request.body.value, request.body.country, undefined, opts.now());
    if (!outcome.ok) return { valid: false, normalized: null, original: null, country: null, details: null, errors: outcome.errors, schema_version: 1 as const };
    const { value, original, country, details } = outcome.checked;
    return { valid: true, normalized: value, original, country, details, errors: [], schema_version: 1 as const };
  });
}
