import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import type { TSchema } from 'typebox';
import type { LazyCompilers } from '../lazy-compile.js';

/**
 * Two validators: request bodies are checked as sent (no type coercion, unknown members
 * refused by the schemas), while query strings, params and headers, which arrive as text, are
 * coerced to their declared types. Each schema is compiled on its route's first request.
 */
export function installValidators(app: FastifyInstance, lazy: Pick<LazyCompilers, 'validator'>, sharedSchemas: readonly TSchema[]): void {
  const strict = new Ajv({ coerceTypes: false, useDefaults: true, removeAdditional: false, allErrors: true, strict: false });
  const coercing = new Ajv({ coerceTypes: 'array', useDefaults: true, removeAdditional: false, allErrors: true, strict: false });
  for (const ajv of [strict, coercing]) {
    addFormats.default(ajv);
    for (const schema of sharedSchemas) ajv.addSchema(schema);
  }
  app.setValidatorCompiler(({ schema, httpPart }) => {
    // A binary body (a photo: OpenAPI 3.1 writes it as a string with contentMediaType) arrives as
    // bytes: its media types and size are the route's parser's to check, its content the route's.
    if (httpPart === 'body' && (schema as { contentMediaType?: string }).contentMediaType !== undefined) return () => true;
    return lazy.validator(() => (httpPart === 'body' ? strict : coercing).compile(schema));
  });
}
