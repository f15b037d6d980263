// The names generators give this module's operations (OpenAPI operationId): a verb and its
// object, as a developer would name the method, never the path spelled out. Keyed by method
// and path template as the document writes them; the contract test fails on a route without one.
import type { OperationNames } from '../../platform/module.js';

export const OPERATIONS = {
  'GET /subscriptions': 'listSubscriptions',
  'GET /subscriptions/{id}': 'getSubscription',
  'POST /subscriptions/{id}/approve': 'approveSubscription',
  'POST /subscriptions/{id}/deny': 'denySubscription',
  'POST /subscriptions/{id}/move': 'moveSubscription',
  'POST /subscriptions/{id}/revoke': 'revokeSubscription',
  'GET /blocks': 'listBlocks',
  'DELETE /blocks/{username}': 'unblock',
  'POST /contacts': 'subscribe',
  'GET /contacts': 'listContacts',
  'GET /contacts/vcard': 'getAllContactsVcard',
  'GET /contacts/{id}': 'getContact',
  'DELETE /contacts/{id}': 'removeContact',
  'GET /contacts/{id}/card': 'getContactCard',
  'GET /contacts/{id}/vcard': 'getContactVcard',
  'GET /contacts/{id}/annotation': 'getAnnotation',
  'PUT /contacts/{id}/annotation': 'putAnnotation',
  'DELETE /contacts/{id}/annotation': 'deleteAnnotation',
  'GET /labels': 'listLabels',
} as const satisfies OperationNames;
