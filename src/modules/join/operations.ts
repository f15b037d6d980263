// The names generators give this module's operations (OpenAPI operationId): a verb and its
// object, as a developer would name the method, never the path spelled out. Keyed by method
// and path template as the document writes them; the contract test fails on a route without one.
import type { OperationNames } from '../../platform/module.js';

export const OPERATIONS = {
  'POST /auth/join/issue': 'issueJoinCode',
  'GET /auth/join/code': 'getJoinCodeState',
  'POST /auth/join/redeem': 'redeemJoinCode',
  'POST /auth/join/start': 'startJoinWithoutDevice',
  'GET /auth/join/attempts/{id}': 'getJoinAttempt',
  'GET /auth/join/pending': 'listPendingJoins',
  'POST /auth/join/approve': 'approveJoin',
  'POST /auth/join/deny': 'denyJoin',
  'POST /auth/join/approve-with-factor': 'approveOwnJoinWithFactor',
  'POST /auth/join/register-options': 'getJoinPasskeyOptions',
  'POST /auth/join/finish': 'finishJoin',
} as const satisfies OperationNames;
