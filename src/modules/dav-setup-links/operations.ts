// The names generators give this module's operations (OpenAPI operationId).
import type { OperationNames } from '../../platform/module.js';

export const OPERATIONS = {
  'POST /dav-setup-links': 'createPhoneSetupLink',
  'GET /dav-setup-links/{id}': 'getPhoneSetupLink',
  'DELETE /dav-setup-links/{id}': 'withdrawPhoneSetupLink',
  'POST /dav-setup-links/redeem': 'redeemPhoneSetupLink',
  'POST /dav-setup-links/profile': 'redeemPhoneSetupLinkAsProfile',
} as const satisfies OperationNames;
