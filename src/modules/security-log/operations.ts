// The names generators give this module's operations (OpenAPI operationId): a verb and its
// object, as a developer would name the method, never the path spelled out. Keyed by method
// and path template as the document writes them; the contract test fails on a route without one.
import type { OperationNames } from '../../platform/module.js';

export const OPERATIONS = {
  'GET /auth/security-log': 'listSecurityLog',
} as const satisfies OperationNames;
