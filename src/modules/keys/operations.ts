// The names generators give this module's operations (OpenAPI operationId): a verb and its
// object, as a developer would name the method, never the path spelled out. Keyed by method
// and path template as the document writes them; the contract test fails on a route without one.
import type { OperationNames } from '../../platform/module.js';

export const OPERATIONS = {
  'GET /keys/devices': 'listKeyBundles',
  'GET /keys/devices/{method_id}': 'getKeyBundle',
  'PUT /keys/devices/{method_id}': 'putKeyBundle',
  'DELETE /keys/devices/{method_id}': 'deleteKeyBundle',
  'GET /contacts/{id}/keys': 'listContactKeys',
  'GET /keys/share': 'getKeyShare',
  'PUT /keys/share': 'putKeyShare',
  'DELETE /keys/share': 'deleteKeyShare',
} as const satisfies OperationNames;
