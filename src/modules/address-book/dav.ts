import { noneMatchHolds } from '../../platform/etag.js';
import type { DavPrincipal } from '../dav-tokens/service.js';
import { DavError } from './dav-error.js';
import { ADDRESS_DATA, readPropfind, readReport } from './dav-requests.js';
import type { PropRequest, Report } from './dav-requests.js';
import { MULTISTATUS_CLOSE, MULTISTATUS_OPEN, MULTISTATUS_TYPE, STATUS, answer, propResponse, statusResponse, syncTokenElement } from './multistatus.js';
import { PROP, VCARD_TYPE, cardProperties, collectionProperties } from './properties.js';
import type { PropertyContext, PropertyValue } from './properties.js';
import { pathOf, resolveHref, resolvePath } from './resources.js';
import type { Resource } from './resources.js';
import { SYNC_PAGE } from './service.js';
import type { AddressBookService, AddressCard } from './service.js';
import type { SyncTokens } from './sync-token.js';
import { matchesFilter, vcardSubset } from './vcard-parts.js';
import { escapeVcardXml, href } from './xml.js';

/**
 * The address book's DAV methods on plain values (routes.ts adapts them to HTTP): OPTIONS,
 * GET/HEAD, PROPFIND (RFC 4918 §9.1) and the REPORTs (RFC 6352 §8.6, §8.7; RFC 6578 §3), all
 * read-only; every write is refused with DAV:need-privileges.
 */

export interface DavCall {
  method: string;
  /** The request's path, as sent (percent-encoded), without its query. */
  path: string;
  depth?: string;
  ifNoneMatch?: string;
  body?: Buffer;
  principal: DavPrincipal;
}

export interface DavAnswer {
  status: number;
  headers: Record<string, string>;
  /** Text, or chunks written as they come (a large listing is never whole in memory). */
  body?: string | AsyncIterable<string>;
}

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

/** Depth (RFC 4918 §10.2) of a PROPFIND: 0 or 1. Infinity is refused (§9.1); none is taken as 1, as sabre/dav does, since no client here means a whole tree. */
function propfindDepth(header: string | undefined): 0 | 1 {
  const depth = (header ?? '1').trim().toLowerCase();
  if (depth === '0') return 0;
  if (depth === '1') return 1;
  if (depth === 'infinity') throw new DavError(403, 'Depth: infinity is not served; use 0 or 1', '<D:propfind-finite-depth/>');
  throw new DavError(400, 'Depth is 0, 1 or infinity');
}

const multistatus = (body: string | AsyncIterable<string>): DavAnswer => ({ status: 207, headers: { 'Content-Type': MULTISTATUS_TYPE }, body });

/**
 * Whether answering needs the cards' vCards: for C:address-data (REPORTs only), and for
 * DAV:getcontentlength, which every card has (RFC 4918 §15.4) and allprop and propname name.
 */
const wantsVcards = (props: PropRequest) => props.kind !== 'names' || props.names.includes(ADDRESS_DATA) || props.names.includes(PROP.getcontentlength);

export function createDavHandler(deps: { book: AddressBookService; tokens: SyncTokens }) {
  const { book, tokens } = deps;

  /** A card's properties in a REPORT: its live ones, and its vCard (or the parts asked for). */
  function reportProperties(card: AddressCard, props: PropRequest): Record<string, PropertyValue> {
    const available = cardProperties(card);
    if (card.vcard !== undefined && props.kind === 'names') {
      const properties = props.addressData?.properties;
      available[ADDRESS_DATA] = escapeVcardXml(properties ? vcardSubset(card.vcard, properties) : card.vcard);
    }
    return available;
  }

  async function cardResponse(principal: DavPrincipal, card: AddressCard, props: PropRequest, path?: string): Promise<string> {
    return propResponse(path ?? pathOf({ kind: 'card', person: card.ownerId }, principal.accountId), await answer(props, reportProperties(card, props)));
  }

  function contextOf(principal: DavPrincipal): PropertyContext {
    let token: Promise<string> | undefined;
    return {
      accountId: principal.accountId,
      username: principal.username,
      token: () => (token ??= book.currentToken(principal.accountId).then(tokens.format)),
    };
  }

  /** The members a collection lists at Depth 1 (the book's cards come page by page). */
  function membersOf(resource: Resource): Resource[] {
    switch (resource.kind) {
      case 'root':
        return [{ kind: 'principals' }, { kind: 'homes' }];
      case 'principals':
        return [{ kind: 'principal' }];
      case 'homes':
        return [{ kind: 'home' }];
      case 'home':
        return [{ kind: 'book' }];
      default:
        return [];
    }
  }

  async function propfind(call: DavCall, resource: Resource): Promise<DavAnswer> {
    const depth = propfindDepth(call.depth);
    const props = readPropfind(call.body);
    const { principal } = call;
    const path = (r: Resource) => pathOf(r, principal.accountId);
    if (resource.kind === 'card') {
      const [card] = await book.cards(principal.accountId, [resource.person], wantsVcards(props));
      if (!card) throw new DavError(404, 'no such card in this address book');
      return multistatus(`${MULTISTATUS_OPEN}${propResponse(path(resource), await answer(props, cardProperties(card)))}${MULTISTATUS_CLOSE}`);
    }
    const ctx = contextOf(principal);
    // The resource itself before anything is sent, so a failure is still a status of its own.
    // PROPFIND / (a client given only the host name): the root's answer, under the href asked.
    const first = propResponse(call.path === '/' ? '/' : path(resource), await answer(props, collectionProperties(resource, ctx)));
    async function* rest(): AsyncIterable<string> {
      yield MULTISTATUS_OPEN + first;
      if (depth === 1) {
        for (const member of membersOf(resource)) yield propResponse(path(member), await answer(props, collectionProperties(member, ctx)));
        if (resource.kind === 'book') {
          for await (const page of book.pages(principal.accountId, wantsVcards(props))) {
            const responses: string[] = [];
            for (const card of page) responses.push(propResponse(path({ kind: 'card', person: card.ownerId }), await answer(props, cardProperties(card))));
            yield responses.join('');
          }
        }
      }
      yield MULTISTATUS_CLOSE;
    }
    return multistatus(rest());
  }

  /** C:addressbook-multiget (RFC 6352 §8.7): each href answered as the client wrote it, in its order. */
  async function multiget(principal: DavPrincipal, report: Extract<Report, { report: 'multiget' }>): Promise<DavAnswer> {
    const people = new Map<string, string>();
    for (const requested of report.hrefs) {
      const resource = resolveHref(requested, principal.accountId);
      if (resource?.kind === 'card') people.set(requested, resource.person);
    }
    const cards = new Map((await book.cards(principal.accountId, [...new Set(people.values())], wantsVcards(report.props))).map((card) => [card.ownerId, card]));
    const responses: string[] = [];
    for (const requested of new Set(report.hrefs)) {
      const card = cards.get(people.get(requested) ?? '');
      responses.push(card ? await cardResponse(principal, card, report.props, requested) : statusResponse(requested, STATUS.notFound));
    }
    return multistatus(`${MULTISTATUS_OPEN}${responses.join('')}${MULTISTATUS_CLOSE}`);
  }

  /**
   * DAV:sync-collection (RFC 6578 §3): with no token, every card in the book; with one, the
   * cards that changed after it (200 with their properties) and those gone (404, nothing else),
   * read from the card-change log (decision 180). Nothing changed: the same token back.
   */
  async function sync(principal: DavPrincipal, report: Extract<Report, { report: 'sync' }>): Promise<DavAnswer> {
    const account = principal.accountId;
    const vcards = wantsVcards(report.props);
    const bookPath = pathOf({ kind: 'book' }, account);
    if (report.token === '') {
      // The position is read before the cards: a change in between is in the next sync (again, harmlessly).
      const token = tokens.format(await book.currentToken(account));
      const pages = book.pages(account, vcards);
      let head: AddressCard[] | undefined;
      if (report.limit !== undefined) {
        // RFC 6578 §3.7: a first sync cannot be cut short (the token resumes after changes, not
        // after cards), so a limit it would exceed is refused; the client asks without one.
        head = [];
        for await (const page of pages) {
          head.push(...page);
          if (head.length > report.limit) throw new DavError(403, `the address book holds more than ${report.limit} cards`, '<D:number-of-matches-within-limits/>');
        }
      }
      async function* all(): AsyncIterable<string> {
        yield MULTISTATUS_OPEN;
        for await (const page of head ? [head] : pages) {
          const responses: string[] = [];
          for (const card of page) responses.push(await cardResponse(principal, card, report.props));
          yield responses.join('');
        }
        yield syncTokenElement(token) + MULTISTATUS_CLOSE;
      }
      return multistatus(all());
    }
    const position = tokens.parse(report.token);
    const changes = position === undefined ? undefined : await book.changesSince(account, position, Math.min(report.limit ?? SYNC_PAGE, SYNC_PAGE));
    // RFC 6578 §3.2: a token the server does not know; DAVx5 and others start over.
    if (!changes) throw new DavError(403, 'this sync token is not one of this address book', '<D:valid-sync-token/>');
    const cards = new Map((await book.cards(account, changes.people, vcards)).map((card) => [card.ownerId, card]));
    const responses: string[] = [];
    for (const person of changes.people) {
      const card = cards.get(person);
      responses.push(card ? await cardResponse(principal, card, report.props) : statusResponse(pathOf({ kind: 'card', person }, account), STATUS.notFound));
    }
    // RFC 6578 §3.6: cut short; the token resumes after the last change sent.
    if (changes.truncated) responses.push(statusResponse(bookPath, STATUS.insufficientStorage, '<D:number-of-matches-within-limits/>'));
    return multistatus(`${MULTISTATUS_OPEN}${responses.join('')}${syncTokenElement(tokens.format(changes.token))}${MULTISTATUS_CLOSE}`);
  }

  /** C:addressbook-query (RFC 6352 §8.6): every card, or those the filter matches, up to the client's limit. */
  async function query(principal: DavPrincipal, report: Extract<Report, { report: 'query' }>): Promise<DavAnswer> {
    const filter = report.filter;
    const pages = book.pages(principal.accountId, filter !== undefined || wantsVcards(report.props));
    const props = report.props;
    async function* matching(): AsyncIterable<string> {
      yield MULTISTATUS_OPEN;
      let sent = 0;
      for await (const page of pages) {
        const responses: string[] = [];
        for (const card of page) {
          if (filter && !matchesFilter(card.vcard!, filter)) continue;
          if (report.limit !== undefined && sent === report.limit) {
            // RFC 6352 §8.6.1: truncated by the client's limit, said with a 507 for the book.
            yield `${responses.join('')}${statusResponse(pathOf({ kind: 'book' }, principal.accountId), STATUS.insufficientStorage, '<D:number-of-matches-within-limits/>')}${MULTISTATUS_CLOSE}`;
            return;
          }
          // The vCard was read for the filter; it is sent only when asked for.
          responses.push(await cardResponse(principal, wantsVcards(props) ? card : { ...card, vcard: undefined }, props));
          sent++;
        }
        yield responses.join('');
      }
      yield MULTISTATUS_CLOSE;
    }
    return multistatus(matching());
  }

  async function report(call: DavCall, resource: Resource): Promise<DavAnswer> {
    const parsed = readReport(call.body);
    // Every report is the book's (its DAV:supported-report-set); none is served elsewhere.
    if (resource.kind !== 'book') throw new DavError(403, `the ${parsed.report} report is served on the address book itself`, '<D:supported-report/>');
    if (parsed.report === 'multiget') return multiget(call.principal, parsed);
    if (parsed.report === 'sync') {
      // RFC 6578 §3.2 asks Depth 0; Thunderbird sends 1, which means the same here.
      if ((call.depth ?? '0').trim().toLowerCase() === 'infinity') throw new DavError(400, 'a sync-collection report takes Depth 0');
      return sync(call.principal, parsed);
    }
    return query(call.principal, parsed);
  }

  /** GET and HEAD: a card as vCard 3.0 with its strong tag (RFC 9110 §8.8.3); 304 when the client holds it. */
  async function get(call: DavCall, resource: Resource): Promise<DavAnswer> {
    if (resource.kind !== 'card') {
      return { status: 200, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: 'A read-only CardDAV address book: add it to an address-book app with an address-book password.\n' };
    }
    const account = call.principal.accountId;
    if (call.ifNoneMatch) {
      const [tag] = await book.cards(account, [resource.person], false);
      if (!tag) throw new DavError(404, 'no such card in this address book');
      if (noneMatchHolds(call.ifNoneMatch, tag.etag)) return { status: 304, headers: { ETag: tag.etag } };
    }
    const [card] = await book.cards(account, [resource.person], true);
    if (!card) throw new DavError(404, 'no such card in this address book');
    const headers = { 'Content-Type': VCARD_TYPE, ETag: card.etag, 'Last-Modified': new Date(card.updatedAt).toUTCString() };
    return { status: 200, headers, body: card.vcard! };
  }

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
