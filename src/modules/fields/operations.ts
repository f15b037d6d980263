// The names generators give this module's operations (OpenAPI operationId): a verb and its
// object, as a developer would name the method, never the path spelled out. Keyed by method
// and path template as the document writes them; the contract test fails on a route without one.
import type { OperationNames } from '../../platform/module.js';

export const OPERATIONS = {
  'GET /field-types': 'listFieldTypes',
  'GET /field-types/{key}': 'getFieldType',
  'POST /field-types/{key}/validate': 'validateFieldValue',
  'GET /me/fields': 'listFields',
  'POST /me/fields': 'createField',
  'GET /me/fields/{id}': 'getField',
  'PATCH /me/fields/{id}': 'updateField',
  'DELETE /me/fields/{id}': 'deleteField',
} as const satisfies OperationNames;
