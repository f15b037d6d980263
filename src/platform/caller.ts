import type { AccountRecord } from './store/accounts.js';

export type { AccountRecord } from './store/accounts.js';

/**
 * The caller of an authenticated request, as services see it: the session, the key it is
 * bound to, whether it is trusted, and the account row read with the token (one lookup).
 */
export interface AuthContext {
  sessionId: string;
  jkt: string;
  trusted: boolean;
  account: AccountRecord;
}
