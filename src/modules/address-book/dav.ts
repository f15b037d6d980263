import type { DavAnswer, DavCall } from './dav-call.js';
import { DavError } from './dav-error.js';
import { createDavGet } from './dav-get.js';
import { createDavPropfind } from './dav-propfind.js';
import { createDavReports } from './dav-reports.js';
import { pathOf, resolvePath } from './resources.js';
import type { AddressBookService } from './service.js';
import type { SyncTokens } from './sync-token.js';
import { href } from './xml.js';

export type { DavAnswer, DavCall } from './dav-call.js';

/**
 * The address book's DAV methods on plain values (routes.ts adapts them to HTTP): OPTIONS,
 * GET/HEAD, PROPFIND (RFC 4918 §9.1) and the REPORTs (RFC 6352 §8.6, §8.7; RFC 6578 §3), all
 * read-only; every write is refused with DAV:need-privileges. Each method is a file of its own:
 * dav-get.ts, dav-propfind.ts, dav-reports.ts (and dav-sync.ts).
 */

/** RFC 4918 §10.1, RFC 3744 §7.2, RFC 6352 §6.1: what the OPTIONS of every resource says. */
export const DAV_COMPLIANCE = '1, 3, access-control, addressbook';
/** The methods a resource answers; Evolution judges a book read-only from this list. */
export const ALLOWED = 'OPTIONS, GET, HEAD, PROPFIND, REPORT';

/**
 * The privilege each write would need (RFC 3744 §7.1.1, Appendix B), named in the 403 so a
 * client knows it is refused for good: DAVx5 skips an upload refused with need-privileges, and
 * iOS stops retrying; a 401 would look like a password to ask for again.
 */
const WRITES: Record<string, string> = {
  PUT: 'write-content',
  POST: 'write-content',
  PATCH: 'write-content',
  LOCK: 'write-content',
  UNLOCK: 'unlock',
  PROPPATCH: 'write-properties',
  DELETE: 'unbind',
  MOVE: 'unbind',
  UNBIND: 'unbind',
  MKCOL: 'bind',
  MKCALENDAR: 'bind',
  COPY: 'bind',
  BIND: 'bind',
  REBIND: 'bind',
  ACL: 'write-acl',
};

function needPrivileges(path: string, privilege: string): DavError {
  return new DavError(403, 'the address book is read-only', `<D:need-privileges><D:resource>${href(path)}<D:privilege><D:${privilege}/></D:privilege></D:resource></D:need-privileges>`);
}

export function createDavHandler(deps: { book: AddressBookService; tokens: SyncTokens }) {
  const get = createDavGet(deps);
  const propfind = createDavPropfind(deps);
  const report = createDavReports(deps);

  return async function handle(call: DavCall): Promise<DavAnswer> {
    // `/` is routed here for PROPFIND only (routes.ts): it answers as the DAV root does.
    const resource = call.path === '/' ? ({ kind: 'root' } as const) : resolvePath(call.path, call.principal.accountId);
    // Another account's path answers as nothing would: its existence is not told.
    if (!resource) throw new DavError(404, 'nothing here');
    switch (call.method) {
      case 'OPTIONS':
        return { status: 200, headers: { DAV: DAV_COMPLIANCE, Allow: ALLOWED, 'Content-Length': '0' } };
      case 'GET':
      case 'HEAD':
        return get(call, resource);
      case 'PROPFIND':
        return propfind(call, resource);
      case 'REPORT':
        return report(call, resource);
    }
    const privilege = WRITES[call.method];
    if (privilege) throw needPrivileges(pathOf(resource, call.principal.accountId), privilege);
    throw new DavError(405, `${call.method} is not supported here; use ${ALLOWED}`);
  };
}

export type DavHandler = ReturnType<typeof createDavHandler>;
