// The names generators give this module's operations (OpenAPI operationId): a verb and its
// object, as a developer would name the method, never the path spelled out. Keyed by method
// and path template as the document writes them; the contract test fails on a route without one.
import type { OperationNames } from '../../platform/module.js';

export const OPERATIONS = {
  'GET /profiles': 'listProfiles',
  'POST /profiles': 'createProfile',
  'GET /profiles/{id}': 'getProfile',
  'PATCH /profiles/{id}': 'updateProfile',
  'DELETE /profiles/{id}': 'deleteProfile',
  'GET /profiles/{id}/exposures': 'listExposures',
  'PUT /profiles/{id}/exposures/{field_id}': 'exposeField',
  'DELETE /profiles/{id}/exposures/{field_id}': 'hideField',
  'GET /profiles/{id}/preview': 'previewProfileCard',
  'GET /public/{username}': 'getPublicCard',
  'GET /public/{username}/vcard': 'getPublicVcard',
} as const satisfies OperationNames;
