// The names generators give this module's operations (OpenAPI operationId): a verb and its
// object, as a developer would name the method, never the path spelled out. Keyed by method
// and path template as the document writes them; the contract test fails on a route without one.
import type { OperationNames } from '../../platform/module.js';

export const OPERATIONS = {
  'POST /auth/token/renew': 'renewTokens',
  'POST /auth/logout': 'logout',
  'GET /auth/sessions': 'listSessions',
  'DELETE /auth/sessions/{id}': 'revokeSession',
} as const satisfies OperationNames;
