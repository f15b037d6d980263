import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { sharedSchemas } from '../schemas/index.js';

/**
 * Two validators: request bodies are checked as sent (no type coercion, unknown members
 * refused by the schemas), while query strings, params and headers, which arrive as text, are
 * coerced to their declared types.
 */
export function installValidators(app: FastifyInstance): void {
  const strict = new Ajv({ coerceTypes: false, useDefaults: true, removeAdditional: false, allErrors: true, strict: false });
  const coercing = new Ajv({ coerceTypes: 'array', useDefaults: true, removeAdditional: false, allErrors: true, strict: false });
  for (const ajv of [strict, coercing]) {
    addFormats.default(ajv);
    for (const schema of sharedSchemas) ajv.addSchema(schema);
  }
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? strict : coercing).compile(schema));
}
