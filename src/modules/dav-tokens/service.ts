import { createDavAuthentication } from './authentication.js';
import { createDavTokenManagement } from './management.js';
import type { DavTokenDeps } from './tokens.js';

export { LAST_USED_RESOLUTION_MS } from './tokens.js';
export type { CreatedDavToken, DavPrincipal, DavTokenDeps, DavTokenView } from './tokens.js';

/**
 * Address-book passwords (PRODUCT §9, decision 150): a person makes one per phone or desktop
 * address book, which signs in with HTTP Basic (RFC 7617) under /dav/. `authenticate` is what
 * the CardDAV routes call on every request (authentication.ts); the rest serves /dav-tokens
 * (management.ts).
 */
export function createDavTokenService(deps: DavTokenDeps) {
  const authentication = createDavAuthentication(deps);
  const management = createDavTokenManagement(deps);
  return {
    authenticate: authentication.authenticate,
    create: management.create,
    issue: management.issue,
    list: management.list,
    revoke: management.revoke,
    revokeAll: management.revokeAll,
    exportPages: management.exportPages,
    erase: management.erase,
    prune: authentication.prune,
  };
}

export type DavTokenService = ReturnType<typeof createDavTokenService>;
