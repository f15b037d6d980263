import { createSessionAuthentication } from './authentication.js';
import { createSessionListing } from './listing.js';
import { createSessionOpening } from './opening.js';
import { createSessionRenewal } from './renewal.js';
import { createSessionRevocation } from './revocation.js';
import type { SessionDeps } from './session-deps.js';

export type { IssuedTokens, SessionDeps, SessionView } from './session-deps.js';

/**
 * DPoP-bound sessions: opening one (opening.ts), the authenticated lookup on every request
 * (authentication.ts), renewal (renewal.ts), revocation and logout (revocation.ts), and the
 * session list, export and purge (listing.ts).
 */
export function createSessionService(deps: SessionDeps) {
  const revocation = createSessionRevocation(deps);
  const opening = createSessionOpening(deps);
  const authentication = createSessionAuthentication(deps);
  const renewal = createSessionRenewal(deps, revocation.revokeIn);
  const listing = createSessionListing(deps);
  return {
    revokeIn: revocation.revokeIn,
    revokeOthersIn: revocation.revokeOthersIn,
    revokeAllForLockIn: revocation.revokeAllForLockIn,
    open: opening.open,
    authenticate: authentication.authenticate,
    renew: renewal.renew,
    exportPages: listing.exportPages,
    erase: listing.erase,
    signInPasskeyOf: listing.signInPasskeyOf,
    list: listing.list,
    revoke: revocation.revoke,
    logout: revocation.logout,
    streamExpiry: authentication.streamExpiry,
    isLive: authentication.isLive,
  };
}

export type SessionService = ReturnType<typeof createSessionService>;
