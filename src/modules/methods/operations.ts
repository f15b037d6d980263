// The names generators give this module's operations (OpenAPI operationId): a verb and its
// object, as a developer would name the method, never the path spelled out. Keyed by method
// and path template as the document writes them; the contract test fails on a route without one.
import type { OperationNames } from '../../platform/module.js';

export const OPERATIONS = {
  'GET /auth/methods': 'listPasskeys',
  'PATCH /auth/methods/{id}': 'renamePasskey',
  'DELETE /auth/methods/{id}': 'removePasskey',
  'POST /auth/methods/passkeys/begin': 'beginAddPasskey',
  'POST /auth/methods/passkeys/finish': 'finishAddPasskey',
  'POST /auth/totp': 'enrollTotp',
  'GET /auth/totp': 'listTotp',
  'POST /auth/totp/{id}/confirm': 'confirmTotp',
  'DELETE /auth/totp/{id}': 'removeTotp',
} as const satisfies OperationNames;
